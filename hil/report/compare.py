"""Candidate against reference from the results database: `hil compare`, and the gate's pages.

    hil compare REFERENCE CANDIDATE [--hil-db URL] [--inventory boards.yaml] [--markdown F] [--html F] [--json F]

REFERENCE and CANDIDATE are build names: every complete run of that build in the database (hil.db). The
reference is typically measured several times (each run its own boot), the candidate once. This module reads
the two sides, checks that their runs agree on what each metric is (its unit and direction always, its band
and thresholds (min_effect, run_spread) and the inventory unless --inventory names the one that rules; the
thresholds are then that inventory's, else the ones every run agrees on, never one side's own), and renders
the gate that hil.verdict.gate decides (Markdown, HTML, JSON, a banner); it decides nothing itself.
Exit status: 0 PASS, 1 BLOCKED, 6 INCOMPLETE, 4 bad input (a database that cannot be opened, a build with
no stored run, runs that disagree), before anything is compared.
Plain module: no pytest.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from hil.build.identity import build_label
from hil.db import engine as db_engine
from hil.db.convert import judged_by
from hil.db.engine import DatabaseError
from hil.db.read import runs_of_build
from hil.errors import InventoryError
from hil.records.exitcodes import HilExit
from hil.records.files import atomic_write_text
from hil.records.store import StoredRun
from hil.report.pages import render
from hil.report.summary import fmt_num, key_of
from hil.verdict import gate
from hil.verdict.gate import Gate, Row, Thresholds
from hil.verdict.result import MetricResult

EXIT = {Gate.PASS: HilExit.OK, Gate.BLOCKED: HilExit.GATE_FAILED, Gate.INCOMPLETE: HilExit.LAB_ERROR}


class CompareError(ValueError):
    """Input the comparison cannot use; the message names the builds, runs or file."""


@dataclass
class Side:
    """The runs of one build: a label, the runs, and what they were (build identity, inventory)."""

    label: str
    runs: list[StoredRun]

    @property
    def run_ids(self) -> list[str]:
        return [stored.run.id for stored in self.runs]


@dataclass
class Comparison:
    reference: dict[str, Any]
    candidate: dict[str, Any]
    gate: Gate
    summary: str
    rows: list[Row] = field(default_factory=list)
    min_effect: float | None = None  # one for every metric (--min-effect); None: each metric's own

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["gate"] = str(self.gate)
        for row in data["rows"]:
            row["gate"] = str(row["gate"])
        return data


# --- reading the two sides ------------------------------------------------------------------------------


def load_side(build: str, engine: Engine) -> Side:
    """Every complete run of `build` in the database; CompareError when it has none."""
    runs = runs_of_build(engine, build)
    if not runs:
        raise CompareError(f"no run of build {build!r} stored in the results database")
    return Side(build, runs)


def _identity(side: Side) -> dict[str, Any]:
    builds = {json.dumps(stored.run.build, sort_keys=True) for stored in side.runs}
    build = side.runs[0].run.build if len(builds) == 1 else None
    return {"label": side.label, "build": build, "runs": side.run_ids}


def _name(stored: StoredRun) -> str:
    build = (stored.run.build or {}).get("name")
    return f"run {stored.run.id}" + (f" (build {build})" if build else "")


def thresholds(
    reference: Side, candidate: Side, inventory: Path | None = None, *, live: bool = False
) -> dict[tuple[str, str], Thresholds]:
    """Each metric's thresholds; CompareError naming two runs that disagree on what the metric is (unit,
    direction) or, unless `inventory` rules or the candidate is the `live` run (its results carry the
    inventory in force), on its band, thresholds or inventory file."""
    builds = {s.run.build.get("name") for s in reference.runs if s.run.build} & {
        s.run.build.get("name") for s in candidate.runs if s.run.build
    }
    if builds:
        raise CompareError(f"build {sorted(builds)[0]!r} is on both sides: compare two builds")
    seen: dict[tuple[str, str], tuple[dict[str, Any], StoredRun, MetricResult]] = {}
    files: dict[str, StoredRun] = {}
    ruled = inventory is not None or live
    for stored in [*candidate.runs, *reference.runs] if live else [*reference.runs, *candidate.runs]:
        if stored.run.inventory is not None and not ruled:
            files.setdefault(stored.run.inventory["sha256"], stored)
            if len(files) > 1:
                first = next(iter(files.values()))
                raise CompareError(
                    f"the runs come from different inventories: {_name(first)} used {first.run.inventory['path']}, "
                    f"{_name(stored)} used {stored.run.inventory['path']}: name the one that rules with --inventory"
                )
        for result in stored.results:
            what = judged_by(result)
            key = (result.board, key_of(result))
            if key not in seen:
                seen[key] = (what, stored, result)
                continue
            earlier, other, _ = seen[key]
            for aspect in ("unit", "direction") if ruled else tuple(what):
                if what[aspect] != earlier[aspect]:
                    hint = "" if aspect in ("unit", "direction") else ": name the inventory that rules with --inventory"
                    raise CompareError(
                        f"{key[0]} {key[1]}: {aspect} {earlier[aspect]!r} in {_name(other)}, {what[aspect]!r} in "
                        f"{_name(stored)}{hint}"
                    )
    if inventory is None:
        return {key: Thresholds(what["min_effect"], what["run_spread"]) for key, (what, _, _) in seen.items()}
    return _from_inventory(inventory, {key: result for key, (_, _, result) in seen.items()})


def _from_inventory(path: Path, results: dict[tuple[str, str], MetricResult]) -> dict[tuple[str, str], Thresholds]:
    from hil.inventory.loader import load_inventory  # the catalogue and pydantic: only when asked for

    try:
        loaded = load_inventory(path)
    except (InventoryError, OSError) as exc:
        raise CompareError(f"--inventory: {exc}") from None
    found = {}
    for (board, key), result in results.items():
        pair = loaded.boards.get(board)
        if pair is None:
            raise CompareError(f"--inventory {path}: no pair {board!r} (pairs: {', '.join(loaded.boards)})")
        try:
            spec = pair.spec_for(loaded.inventory, result.metric, result.params)
        except (KeyError, ValueError) as exc:
            raise CompareError(f"--inventory {path}: {board} {key}: {exc}") from None
        found[(board, key)] = Thresholds(spec.min_effect, spec.min_run_spread)
    return found


# --- the comparison -------------------------------------------------------------------------------------


def _by_key(side: Side) -> dict[tuple[str, str], list[MetricResult]]:
    found: dict[tuple[str, str], list[MetricResult]] = {}
    for stored in side.runs:
        for result in stored.results:
            found.setdefault((result.board, key_of(result)), []).append(result)
    return found


def compare_sides(
    reference: Side,
    candidate: Side,
    *,
    min_effect: float | None = None,
    inventory: Path | None = None,
    live: bool = False,
) -> Comparison:
    """`live`: the candidate is the run going on, whose inventory is in force (--reference-build)."""
    decision = gate.decide(
        _by_key(reference), _by_key(candidate), thresholds(reference, candidate, inventory, live=live), min_effect
    )
    return Comparison(
        _identity(reference), _identity(candidate), decision.gate, decision.summary, decision.rows, min_effect
    )


# --- output ---------------------------------------------------------------------------------------------


def _side_text(side: dict[str, Any]) -> str:
    build = side["build"]
    name = build_label(build) if build else side["label"]
    return f"{name} ({len(side['runs'])} run{'s' if len(side['runs']) != 1 else ''})"


def _cells(row: Row) -> list[str]:
    """A row as both tables show it: gate, board, metric, reference, candidate, change, the smallest drop it
    catches, band, why."""
    return [
        str(row.gate),
        row.board,
        row.key,
        f"{fmt_num(row.reference_median)} {row.unit}" if row.reference_median is not None else "",
        f"{fmt_num(row.candidate_median)} {row.unit}" if row.candidate_median is not None else "",
        "" if row.change is None else f"{row.change:+.1%}",
        "" if row.smallest_drop is None else f"{row.smallest_drop:.1%}",
        row.band_verdict or "",
        row.why,
    ]


def markdown(comparison: Comparison) -> str:
    lines = [
        f"## Release gate: {comparison.gate}",
        "",
        f"**{comparison.summary}**",
        "",
        f"Candidate {_side_text(comparison.candidate)} against reference {_side_text(comparison.reference)}; "
        "a regression is at least "
        + (f"{comparison.min_effect:.0%}" if comparison.min_effect is not None else "each metric's min_effect")
        + " worse, significant within the runs and beyond the reference runs' spread (at least each metric's "
        "run_spread).",
        "",
        "| Gate | Board | Metric | Reference | Candidate | Change | Catches | Band | Why |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in comparison.rows:
        cells = _cells(row)
        cells[2] = f"`{cells[2]}`"
        cells[-1] = cells[-1].replace("|", "/")  # a | would end the Markdown cell
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


GATE_COLOUR = {Gate.PASS: "#2e7d32", Gate.BLOCKED: "#c62828", Gate.INCOMPLETE: "#ef6c00"}


def gate_banner(comparison: Comparison) -> str:
    """The gate in one line, for the top of a report page."""
    return render(
        "gate_banner.html",
        colour=GATE_COLOUR[comparison.gate],
        reference=_side_text(comparison.reference),
        summary=comparison.summary,
    )


def html(comparison: Comparison, **page: Any) -> str:
    """The gate page; `page`: what the dashboard adds to it (hil.serve)."""
    return render(
        "gate.html",
        title=f"hil release gate: {comparison.gate}",
        comparison=comparison,
        colour=GATE_COLOUR[comparison.gate],
        candidate=_side_text(comparison.candidate),
        reference=_side_text(comparison.reference),
        rows=[_cells(row) for row in comparison.rows],
        **page,
    )


def _fraction(text: str) -> float:
    value = float(text.strip().removesuffix("%"))
    if not 0 <= value < 100:
        raise argparse.ArgumentTypeError(f"{text!r}: give a percentage between 0 and 100, e.g. 5%")
    return value / 100


def main(argv: Sequence[str] | None = None, *, prog: str = "hil compare") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("reference", help="the reference build's name (its runs in the results database)")
    parser.add_argument("candidate", help="the build under test's name")
    db_engine.add_options(parser)
    parser.add_argument(
        "--inventory", type=Path, help="the boards.yaml whose thresholds rule when the runs' inventories differ"
    )
    parser.add_argument("--markdown", type=Path, help="write the gate as Markdown (a release note, a merge request)")
    parser.add_argument("--html", type=Path, help="write the gate as an HTML page")
    parser.add_argument("--json", type=Path, help="write the gate as JSON, for machines")
    parser.add_argument(
        "--min-effect",
        type=_fraction,
        default=None,
        help="smallest change that is a regression, for every metric (default: each metric's boards.yaml min_effect)",
    )
    args = parser.parse_args(argv)
    try:
        engine = db_engine.connect(args, create=False)
        try:
            reference = load_side(args.reference, engine)
            candidate = load_side(args.candidate, engine)
        finally:
            engine.dispose()
        comparison = compare_sides(reference, candidate, min_effect=args.min_effect, inventory=args.inventory)
    except (CompareError, DatabaseError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return HilExit.USAGE_ERROR
    text = markdown(comparison)
    print(text, end="")
    for path, content in (
        (args.markdown, text),
        (args.html, html(comparison) if args.html else ""),
        (args.json, json.dumps(comparison.to_dict(), indent=1) + "\n" if args.json else ""),
    ):
        if path is not None:
            atomic_write_text(path, content)
    return EXIT[comparison.gate]


if __name__ == "__main__":
    raise SystemExit(main())
