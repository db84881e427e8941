"""Candidate against reference from the results database: `hil compare`, and the gate's pages.

REFERENCE and CANDIDATE are build names: every complete run of that build in the database (the reference is
typically measured several times, each run its own boot). hil.db.gates reads the two sides and checks that their
runs agree on what each metric is, hil.verdict.gate decides; this module renders the gate (Markdown, HTML, JSON,
a banner). Exit status: 0 PASS, 1 BLOCKED, 6 INCOMPLETE, 4 bad input (a database that cannot be opened, a build
with no stored run, runs that disagree: before anything is compared; an output file that cannot be written).
Plain module: no pytest.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hil.build.identity import build_label
from hil.db import engine as db_engine
from hil.db.engine import DatabaseError
from hil.db.gates import CompareError, Comparison, compare_sides, load_side
from hil.errors import cannot_write
from hil.records.exitcodes import HilExit
from hil.records.files import atomic_write_text
from hil.report.summary import fmt_num
from hil.verdict.gate import Gate, Row

EXIT = {Gate.PASS: HilExit.OK, Gate.BLOCKED: HilExit.GATE_FAILED, Gate.INCOMPLETE: HilExit.LAB_ERROR}


def _side_text(side: dict[str, Any]) -> str:
    build = side["build"]
    name = build_label(build) if build else side["label"]
    return f"{name} ({len(side['runs'])} run{'s' if len(side['runs']) != 1 else ''})"


def _cells(row: Row) -> list[str]:
    """A row as both tables show it."""
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
        cells[-1] += "".join(f"<br/>diagnosis: {line}" for line in row.diagnosis)  # the HTML page's row below it
        cells[-1] = cells[-1].replace("|", "/")  # a | would end the Markdown cell
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


GATE_COLOUR = {Gate.PASS: "#2e7d32", Gate.BLOCKED: "#c62828", Gate.INCOMPLETE: "#ef6c00"}


def _render(template: str, **context: Any) -> str:
    from hil.report.pages import render  # Jinja2: only for a page, not for the Markdown a command prints

    return render(template, **context)


def gate_banner(comparison: Comparison) -> str:
    """The gate in one line, for the top of a report page."""
    return _render(
        "gate_banner.html",
        colour=GATE_COLOUR[comparison.gate],
        reference=_side_text(comparison.reference),
        summary=comparison.summary,
    )


def html(comparison: Comparison, **page: Any) -> str:
    """The gate page; `page`: what the dashboard adds to it (hil.serve)."""
    return _render(
        "gate.html",
        title=f"hil release gate: {comparison.gate}",
        comparison=comparison,
        colour=GATE_COLOUR[comparison.gate],
        candidate=_side_text(comparison.candidate),
        reference=_side_text(comparison.reference),
        rows=[_cells(row) for row in comparison.rows],
        show=page.pop("show", None),  # the dashboard's filter: the rows of one gate (rows are sorted by gate)
        **page,
    )


def gate_files(comparison: Comparison, kinds: Sequence[str] = ("md", "html", "json")) -> dict[str, str]:
    """The gate as Markdown, HTML and JSON, by file suffix (`kinds` only: the HTML costs its template)."""
    writers = {"md": markdown, "html": html, "json": lambda gate: json.dumps(gate.to_dict(), indent=1) + "\n"}
    return {kind: writers[kind](comparison) for kind in kinds}


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
    asked = {kind: path for kind, path in (("md", args.markdown), ("html", args.html), ("json", args.json)) if path}
    files = gate_files(comparison, ["md", *asked.keys() - {"md"}])
    print(files["md"], end="")
    unwritten = 0
    for kind, path in asked.items():
        try:
            atomic_write_text(path, files[kind])
        except OSError as exc:  # named; the other files are still written
            print(f"{prog}: {cannot_write(path, exc)}", file=sys.stderr)
            unwritten += 1
    return EXIT[comparison.gate] if not unwritten else HilExit.USAGE_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
