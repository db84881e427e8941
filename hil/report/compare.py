"""Candidate against reference: the release gate over the runs of two builds in the results database.

    hil compare REFERENCE CANDIDATE [--hil-db URL] [--inventory boards.yaml] [--markdown F] [--html F] [--json F]

REFERENCE and CANDIDATE are build names: every complete run of that build in the database (hil.db). The
reference is typically measured several times (each run its own boot), the candidate once. Per board and
metric:
- the change of the candidate's median against the reference runs' center, and whether it is a regression:
  the engine's run-level comparison (hil.verdict.baseline: size, Mann-Whitney within runs, and beyond the
  run-to-run spread the reference runs show);
- the candidate's band verdict (boards.yaml's band, decided when it was measured);
- the smallest drop the row could have caught (hil.report.sensitivity), and the reference runs that would
  let it catch one of min_effect.
The runs must agree on what each metric is: its unit and direction always, its band and thresholds
(min_effect, run_spread) and the inventory unless --inventory names the one that rules; the thresholds are
then that inventory's, else the ones every run agrees on (never one side's own).
One gate over all of them: BLOCKED (a regression or a band FAIL), INCOMPLETE (a metric the candidate did
not measure, or measured without a verdict: ERROR, UNSTABLE, a PASS without samples; reference runs that
spread wider than the pair's calibrated run_spread: measure the reference again; a row that could catch no
drop at all; a worsening of min_effect, significant within the runs, not beyond their spread), else PASS.
Exit status: 0 PASS, 1 BLOCKED, 6 INCOMPLETE, 4 bad input (a database that cannot be opened, a build with
no stored run, runs that disagree), before anything is compared.
Plain module: no pytest.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from hil.build.manifest import build_label
from hil.db import cli as db_cli
from hil.db.convert import board_of, identity_of, judged_by, other_board
from hil.db.engine import DatabaseError
from hil.db.read import runs_of_build
from hil.errors import InventoryError
from hil.report import sensitivity
from hil.report.exitcodes import HilExit
from hil.report.files import atomic_write_text
from hil.report.pages import render
from hil.report.store import StoredRun
from hil.report.summary import fmt_num, key_of
from hil.verdict.baseline import MIN_RUN_SPREAD, BaselineComparison, compare, run_spread, wider_than, worsening
from hil.verdict.result import CLOCK_PARAM, MetricResult, Verdict, metric_key
from hil.verdict.spec import Direction

WITHOUT_VERDICT = (Verdict.ERROR, Verdict.UNSTABLE)


class Gate(StrEnum):
    PASS = "PASS"
    BLOCKED = "BLOCKED"
    INCOMPLETE = "INCOMPLETE"


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


@dataclass(frozen=True)
class Thresholds:
    """What decides a regression of one metric: from the inventory in force."""

    min_effect: float
    run_spread: float  # the pair's calibrated run-to-run spread (boards.yaml run_spread)


@dataclass
class Row:
    board: str
    key: str
    unit: str
    gate: Gate
    why: str
    reference_median: float | None = None
    candidate_median: float | None = None
    change: float | None = None  # signed fraction against the reference center
    regression: bool = False
    p_value: float | None = None
    run_p: float | None = None
    band_verdict: str | None = None
    reference_runs: int = 0
    smallest_drop: float | None = None  # the smallest worsening this row could call a regression
    runs_needed: int | None = None  # reference runs that would make a min_effect drop visible
    diagnosis: list[str] = field(default_factory=list)  # where the candidate's missed figure lost its rate


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


def _run_medians(results: dict[tuple[str, str], list[MetricResult]], board: str, unit: str) -> dict[str, list[float]]:
    """The run medians of every metric of `board` in `unit` (hil.verdict.baseline.run_spread)."""
    return {
        key: [statistics.median(r.values) for r in runs if len(r.values) >= 1]
        for (b, key), runs in results.items()
        if b == board and runs[0].unit == unit
    }


def _band_gate(candidate: list[MetricResult], measured: list[list[float]]) -> tuple[Gate, str, str]:
    """The candidate's own verdicts: (gate, why, worst verdict). A PASS without samples is no verdict."""
    verdicts = [r.verdict for r in candidate]
    worst = next((v for v in (Verdict.FAIL, Verdict.ERROR, Verdict.UNSTABLE) if v in verdicts), candidate[-1].verdict)
    if worst is Verdict.FAIL:
        return Gate.BLOCKED, f"band: {next(r.reason for r in candidate if r.verdict is Verdict.FAIL)}", str(worst)
    if worst in WITHOUT_VERDICT:
        reason = next(r.reason for r in candidate if r.verdict is worst)
        return Gate.INCOMPLETE, f"no verdict in the candidate ({worst}): {reason}", str(worst)
    if not measured:
        return Gate.INCOMPLETE, f"no verdict in the candidate: {worst} with fewer than 2 samples stored", str(worst)
    return Gate.PASS, "", str(worst)


def _row(
    board: str,
    key: str,
    reference: list[MetricResult],
    candidate: list[MetricResult],
    board_medians: dict[str, list[float]],
    rules: Thresholds,
    min_effect: float | None,
) -> Row:
    if not candidate:
        unit = reference[0].unit
        return Row(board, key, unit, Gate.INCOMPLETE, "not measured in the candidate", reference_runs=len(reference))
    last = candidate[-1]
    effect = rules.min_effect if min_effect is None else min_effect
    floor = rules.run_spread
    spread = run_spread(board_medians, key, floor=floor)  # the reference runs of every metric of the board
    measured = [r.values for r in candidate if len(r.values) >= 2]
    gate, band_why, worst = _band_gate(candidate, measured)
    row = Row(board, key, last.unit, gate, "", band_verdict=worst, reference_runs=len(reference))
    diagnosed = [r.facts.notes["diagnosis"] for r in candidate if r.facts.notes.get("diagnosis")]
    row.diagnosis = list(diagnosed[-1]) if diagnosed else []
    reasons = [band_why] if band_why else []
    boards = [board_of(identity_of(r.facts)) for r in reference]
    other = other_board(boards, board_of(identity_of(last.facts)))
    if other:
        reasons.append(other)
    if measured:
        row.candidate_median = statistics.median(statistics.median(v) for v in measured)
    baseline = [r.values for r in reference if len(r.values) >= 1]
    if not reference:
        reasons.append("new: no reference run measured it")
    elif measured and sum(len(v) for v in baseline) >= 2:
        comparison = compare(
            measured,
            baseline,
            direction=last.direction,
            min_effect=effect,
            spread=spread,
            baseline_run=f"{len(baseline)} reference run{'s' if len(baseline) != 1 else ''}",
        )
        row.reference_median, row.change = comparison.baseline_median, comparison.change
        row.regression, row.p_value, row.run_p = comparison.regression, comparison.p_value, comparison.run_p
        samples = (sum(len(v) for v in measured), sum(len(v) for v in baseline))
        row.smallest_drop = sensitivity.smallest_drop(spread, len(baseline), len(measured), samples, effect)
        wide = floor != MIN_RUN_SPREAD and spread is not None and wider_than(spread, floor)
        blind = row.smallest_drop is not None and row.smallest_drop > effect and spread is not None
        if blind:
            assert spread is not None
            at = floor if wide else spread.relative_sd
            row.runs_needed = sensitivity.runs_needed(at, effect, len(measured))
            more = (
                f"{row.runs_needed} reference runs would catch a {effect:.0%} drop"
                if row.runs_needed
                else f"no number of reference runs would let {len(measured)} candidate run(s) show a {effect:.0%} "
                f"drop at a {at:.0%} spread: measure the candidate more times"
            )
        if comparison.regression:
            gate = Gate.BLOCKED
        elif wide and gate is Gate.PASS and spread is not None:
            # Reference runs that moved more than the pair was calibrated to (a loaded lab PC while they ran):
            # a gate that cannot see, not a pass.
            gate = Gate.INCOMPLETE
            reasons.append(
                f"cannot tell: the reference runs spread {spread.relative_sd:.1%}, more than the pair's "
                f"calibrated {floor * 100:.2g}% (boards.yaml run_spread) beyond chance ({spread.df} df, 5%): "
                "measure the reference again on a quiet lab"
            )
        elif row.smallest_drop is None and gate is Gate.PASS:
            gate = Gate.INCOMPLETE
        elif gate is Gate.PASS and _unconfirmed(comparison, last.direction, effect):
            # A drop of consequence that the runs' spread can neither confirm nor rule out: "no regression"
            # would claim what the comparison could not see (a CI run, 2026-11-28: -27.4% PASSed).
            gate = Gate.INCOMPLETE
            reasons.append(
                f"cannot tell: a {worsening(comparison.change, last.direction):.1%} worsening, significant within "
                "the runs, is within what runs of one build move"
            )
        reasons.append(comparison.reason)
        reasons.append(sensitivity.describe(row.smallest_drop, samples))
        if blind:
            reasons.append(more + (" (at the calibrated spread)" if wide else ""))
    elif measured:
        reasons.append("the reference runs have fewer than 2 samples of it: no comparison")
    row.gate, row.why = gate, "; ".join(reasons)
    return row


def _name_other_clocks(
    rows: list[Row], ref: dict[tuple[str, str], list[MetricResult]], cand: dict[tuple[str, str], list[MetricResult]]
) -> None:
    """A metric one side measured on the virtual clock and the other on the real one (its key with and without
    clock=virtual) is two rows of one side each, never compared: each says so."""

    def unclocked(found: dict[tuple[str, str], list[MetricResult]]) -> dict[tuple[str, str], str]:
        clocks = {}  # (board, key without the clock) -> the clock it was measured on
        for (board, _), results in found.items():
            params = dict(results[0].params)
            clock = str(params.pop(CLOCK_PARAM, "real"))
            clocks[(board, metric_key(results[0].metric, params))] = clock
        return clocks

    sides = {"reference": (ref, unclocked(ref)), "candidate": (cand, unclocked(cand))}
    for row in rows:
        if (row.board, row.key) in ref and (row.board, row.key) in cand:
            continue  # compared
        mine, other = ("reference", "candidate") if (row.board, row.key) in ref else ("candidate", "reference")
        result = sides[mine][0][(row.board, row.key)][0]
        params = dict(result.params)
        clock = str(params.pop(CLOCK_PARAM, "real"))
        there = sides[other][1].get((row.board, metric_key(result.metric, params)))
        if there is not None and there != clock:
            row.why += (
                f"; the {other} measured it on the {there} clock, the {mine} on the {clock}: figures of two clocks "
                "are not compared (measure the reference on the pair's clock)"
            )


def _unconfirmed(comparison: BaselineComparison, direction: Direction, min_effect: float) -> bool:
    """Worse by min_effect or more and significant within the runs, but not beyond the run-to-run spread."""
    worse = worsening(comparison.change, direction) >= min_effect and comparison.p_value < comparison.alpha
    return worse and not comparison.regression


def compare_sides(
    reference: Side,
    candidate: Side,
    *,
    min_effect: float | None = None,
    inventory: Path | None = None,
    live: bool = False,
) -> Comparison:
    """`live`: the candidate is the run going on, whose inventory is in force (--reference-build)."""
    rules = thresholds(reference, candidate, inventory, live=live)
    ref, cand = _by_key(reference), _by_key(candidate)
    rows = []
    units = {found: runs[0].unit for found, runs in ref.items()}
    medians = {(board, unit): _run_medians(ref, board, unit) for (board, _), unit in units.items()}
    for board, key in sorted(set(ref) | set(cand)):
        found = ref.get((board, key), []), cand.get((board, key), [])
        same_unit = medians.get((board, units.get((board, key))), {})
        rows.append(_row(board, key, *found, same_unit, rules[(board, key)], min_effect))
    _name_other_clocks(rows, ref, cand)
    order = {Gate.BLOCKED: 0, Gate.INCOMPLETE: 1, Gate.PASS: 2}
    rows.sort(key=lambda row: (order[row.gate], row.board, row.key))
    blocked = [row for row in rows if row.gate is Gate.BLOCKED]
    incomplete = [row for row in rows if row.gate is Gate.INCOMPLETE]
    gate = Gate.BLOCKED if blocked else Gate.INCOMPLETE if incomplete else Gate.PASS
    counts = f"{len(rows)} metrics: {len(blocked)} blocking, {len(incomplete)} without a verdict"
    if blocked:
        what = ", ".join(f"{r.board} {r.key} ({'regression' if r.regression else 'band'})" for r in blocked[:3])
        summary = f"BLOCKED: {what}{' ...' if len(blocked) > 3 else ''} ({counts})"
    elif incomplete:
        summary = f"INCOMPLETE: {', '.join(f'{r.board} {r.key}' for r in incomplete[:3])} ({counts})"
    else:
        summary = f"PASS: no regression, no band failure ({counts})"
    return Comparison(_identity(reference), _identity(candidate), gate, summary, rows, min_effect)


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
    db_cli.add_options(parser)
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
        engine = db_cli.connect(args, create=False)
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
