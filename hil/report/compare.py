"""Candidate against reference: the release gate over stored runs of two builds.

    hil compare REFERENCE CANDIDATE [--history DIR] [--markdown F] [--html F] [--json F]

REFERENCE and CANDIDATE are each a results file, a directory of them, or a build name looked up in the
history (every stored run whose `run.build.name` is it). The reference is typically measured several times
(each run its own boot), the candidate once. Per board and metric:
- the change of the candidate's median against the reference runs' center, and whether it is a regression:
  the engine's run-level comparison (hil.verdict.baseline: size, Mann-Whitney within runs, and beyond the
  run-to-run spread the reference runs show);
- the candidate's band verdict (boards.yaml's band, decided when it was measured).
One gate over all of them: BLOCKED (a regression or a band FAIL), INCOMPLETE (a metric the candidate did
not measure, or measured without a verdict: ERROR, UNSTABLE; or a change that is worse by the metric's
min_effect and significant within the run, let through only because the reference runs spread wider than
the pair's calibrated run_spread: the gate could not see), else PASS. Exit status: 0 PASS, 1 BLOCKED,
6 INCOMPLETE, 4 bad input (a file that is not there or does not parse, a build with no stored run, runs
of different inventories), before anything is compared.
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
from html import escape
from pathlib import Path
from typing import Any

from hil.build.manifest import build_label
from hil.report.exitcodes import HilExit
from hil.report.files import atomic_write_text
from hil.report.html import STYLE
from hil.report.store import ResultsFileError, StoredRun, load_history, load_run
from hil.report.summary import fmt_num, key_of
from hil.verdict.baseline import MIN_RUN_SPREAD, compare, run_spread, worsening
from hil.verdict.result import BaselineComparison, MetricResult, Verdict
from hil.verdict.spec import Direction

WITHOUT_VERDICT = (Verdict.ERROR, Verdict.UNSTABLE)


class Gate(StrEnum):
    PASS = "PASS"
    BLOCKED = "BLOCKED"
    INCOMPLETE = "INCOMPLETE"


EXIT = {Gate.PASS: HilExit.OK, Gate.BLOCKED: HilExit.GATE_FAILED, Gate.INCOMPLETE: HilExit.LAB_ERROR}


class CompareError(ValueError):
    """Input the comparison cannot use; the message names the file or the build."""


@dataclass
class Side:
    """The runs of one build: a label, the runs, and what they were (build identity, inventory)."""

    label: str
    runs: list[StoredRun]

    @property
    def run_ids(self) -> list[str]:
        return [stored.run.id for stored in self.runs]


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


def _build_name(stored: StoredRun) -> str | None:
    build = stored.run.build or {}
    return build.get("name")


def load_side(spec: str, history: Path, *, build_only: bool = False) -> Side:
    """A results file, a directory of them, or a build name in `history` (only that with `build_only`: a
    build's name may also be a directory beside the run, its manifest's); CompareError when it has no run."""
    path = Path(spec)
    try:
        if not build_only and path.is_file():
            return Side(spec, [load_run(path)])
        if not build_only and path.is_dir():
            runs = [load_run(p) for p in sorted(path.glob("*.json"))]
            if not runs:
                raise CompareError(f"{spec}: no results files (*.json) in this directory")
            return Side(spec, runs)
        if not history.is_dir():
            what = "" if build_only else "no such results file, and "
            raise CompareError(f"{spec}: {what}no history directory {history} to find build {spec!r} in")
        skipped: list[str] = []
        runs = [
            stored for stored in load_history(history, max_runs=None, skipped=skipped) if _build_name(stored) == spec
        ]
        for problem in skipped:  # one corrupt run must not hide every other build's
            print(f"hil compare: skipped {problem}", file=sys.stderr)
    except ResultsFileError as exc:
        raise CompareError(str(exc)) from None
    if not runs:
        raise CompareError(f"{spec}: no results file of that name, and no run of build {spec!r} stored in {history}")
    return Side(spec, runs)


def _identity(side: Side) -> dict[str, Any]:
    builds = {json.dumps(stored.run.build, sort_keys=True) for stored in side.runs}
    build = side.runs[0].run.build if len(builds) == 1 else None
    return {
        "label": side.label,
        "build": build,
        "runs": side.run_ids,
        "files": [str(stored.path) for stored in side.runs],
    }


def check_same_inventory(reference: Side, candidate: Side) -> None:
    """Runs whose bands came from different inventories are not comparable (a CompareError naming them)."""
    seen: dict[str, str] = {}
    for stored in [*reference.runs, *candidate.runs]:
        inventory = stored.run.inventory
        if inventory is not None:
            seen.setdefault(inventory["sha256"], f"{stored.path} ({inventory['path']})")
    if len(seen) > 1:
        raise CompareError("the runs come from different inventories: " + "; ".join(sorted(seen.values())))
    builds = {_build_name(s) for s in reference.runs} & {_build_name(s) for s in candidate.runs} - {None}
    if builds:
        raise CompareError(f"build {sorted(builds)[0]!r} is on both sides: compare two builds")


# --- the comparison -------------------------------------------------------------------------------------


def _by_key(side: Side) -> dict[tuple[str, str], list[MetricResult]]:
    found: dict[tuple[str, str], list[MetricResult]] = {}
    for stored in side.runs:
        for result in stored.results:
            found.setdefault((result.board, key_of(result)), []).append(result)
    return found


def _run_medians(results: dict[tuple[str, str], list[MetricResult]], board: str) -> dict[str, list[float]]:
    return {
        key: [statistics.median(r.values) for r in runs if len(r.values) >= 1]
        for (b, key), runs in results.items()
        if b == board
    }


def _unresolved(comparison: BaselineComparison, direction: Direction, calibrated: float) -> bool:
    """A change that would be a regression but for reference runs wider than the pair's calibrated spread."""
    return (
        worsening(comparison.change, direction) >= comparison.min_effect
        and comparison.p_value < comparison.alpha
        and calibrated > MIN_RUN_SPREAD  # a pair never calibrated has only these runs to say how they vary
        and comparison.run_spread is not None
        and comparison.run_spread > calibrated
    )


def _row(
    board: str,
    key: str,
    reference: list[MetricResult],
    candidate: list[MetricResult],
    board_medians: dict[str, list[float]],
    min_effect: float | None,
) -> Row:
    if not candidate:
        unit = reference[0].unit
        return Row(board, key, unit, Gate.INCOMPLETE, "not measured in the candidate", reference_runs=len(reference))
    last = candidate[-1]
    # The candidate's own spec (boards.yaml's min_effect and run_spread, stored with each result).
    floor = max(r.min_run_spread for r in candidate)
    spread = run_spread(board_medians, key, floor=floor)  # the reference runs of every metric of the board
    verdicts = [r.verdict for r in candidate]
    worst = next((v for v in (Verdict.FAIL, Verdict.ERROR, Verdict.UNSTABLE) if v in verdicts), last.verdict)
    row = Row(board, key, last.unit, Gate.PASS, "", band_verdict=str(worst), reference_runs=len(reference))
    measured = [r.values for r in candidate if len(r.values) >= 2]
    if measured:
        row.candidate_median = statistics.median(statistics.median(v) for v in measured)
    reasons, gate = [], Gate.PASS
    if worst is Verdict.FAIL:
        gate = Gate.BLOCKED
        reasons.append(f"band: {next(r.reason for r in candidate if r.verdict is Verdict.FAIL)}")
    elif worst in WITHOUT_VERDICT:
        gate = Gate.INCOMPLETE
        reasons.append(
            f"no verdict in the candidate ({worst}): {next(r.reason for r in candidate if r.verdict is worst)}"
        )
    baseline = [r.values for r in reference if len(r.values) >= 1]
    if not reference:
        reasons.append("new: no reference run measured it")
    elif measured and sum(len(v) for v in baseline) >= 2:
        comparison = compare(
            measured,
            baseline,
            direction=last.direction,
            min_effect=last.min_effect if min_effect is None else min_effect,
            spread=spread,
            baseline_run=f"{len(baseline)} reference run{'s' if len(baseline) != 1 else ''}",
        )
        row.reference_median, row.change = comparison.baseline_median, comparison.change
        row.regression, row.p_value, row.run_p = comparison.regression, comparison.p_value, comparison.run_p
        if comparison.regression:
            gate = Gate.BLOCKED
        elif _unresolved(comparison, last.direction, floor) and gate is Gate.PASS:
            # Worse by the effect and significant within the run, let through only because the reference
            # runs moved more than the pair was calibrated to (a loaded lab PC while they ran): that is a
            # gate that cannot see, not a pass.
            gate = Gate.INCOMPLETE
            reasons.append(
                f"cannot tell: the reference runs spread {comparison.run_spread:.1%}, more than the pair's "
                f"calibrated {floor:.0%} (boards.yaml run_spread): measure the reference again on a quiet lab"
            )
        reasons.append(comparison.reason)
    elif measured:
        reasons.append("the reference runs have fewer than 2 samples of it: no comparison")
    row.gate, row.why = gate, "; ".join(reasons)
    return row


def compare_sides(reference: Side, candidate: Side, *, min_effect: float | None = None) -> Comparison:
    check_same_inventory(reference, candidate)
    ref, cand = _by_key(reference), _by_key(candidate)
    rows = []
    for board, key in sorted(set(ref) | set(cand)):
        medians = _run_medians(ref, board)
        rows.append(_row(board, key, ref.get((board, key), []), cand.get((board, key), []), medians, min_effect))
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
    """A row as both tables show it: gate, board, metric, reference, candidate, change, band, why."""
    return [
        str(row.gate),
        row.board,
        row.key,
        f"{fmt_num(row.reference_median)} {row.unit}" if row.reference_median is not None else "",
        f"{fmt_num(row.candidate_median)} {row.unit}" if row.candidate_median is not None else "",
        "" if row.change is None else f"{row.change:+.1%}",
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
        "| Gate | Board | Metric | Reference | Candidate | Change | Band | Why |",
        "|---|---|---|---|---|---|---|---|",
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
    colour = GATE_COLOUR[comparison.gate]
    return (
        f"<p class='hil-gate' style='font-size:1.3em;border:2px solid {colour};padding:6px;color:{colour}'>"
        f"<b>Release gate against {escape(_side_text(comparison.reference))}: {escape(comparison.summary)}</b></p>"
    )


def html(comparison: Comparison) -> str:
    colour = GATE_COLOUR[comparison.gate]
    rows = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in _cells(row)) + "</tr>" for row in comparison.rows
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>hil release gate: {comparison.gate}</title>"
        f"{STYLE}</head><body>"
        f"<h1>Release gate: candidate {escape(_side_text(comparison.candidate))}</h1>"
        f"<p style='font-size:1.3em;color:{colour}'><b>{escape(comparison.summary)}</b></p>"
        f"<p>Reference: {escape(_side_text(comparison.reference))}: {escape(', '.join(comparison.reference['runs']))}"
        f"<br>Candidate: {escape(', '.join(comparison.candidate['runs']))}</p>"
        "<table class='hil-summary'><tr><th>Gate</th><th>Board</th><th>Metric</th><th>Reference</th>"
        f"<th>Candidate</th><th>Change</th><th>Band</th><th>Why</th></tr>{rows}</table></body></html>\n"
    )


def _fraction(text: str) -> float:
    value = float(text.strip().removesuffix("%"))
    if not 0 <= value < 100:
        raise argparse.ArgumentTypeError(f"{text!r}: give a percentage between 0 and 100, e.g. 5%")
    return value / 100


def main(argv: Sequence[str] | None = None, *, prog: str = "hil compare") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("reference", help="results file, directory of results files, or a build name in --history")
    parser.add_argument("candidate", help="the same, for the build under test")
    parser.add_argument("--history", type=Path, default=Path("reports/history"), help="where build names are looked up")
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
        reference = load_side(args.reference, args.history)
        candidate = load_side(args.candidate, args.history)
        comparison = compare_sides(reference, candidate, min_effect=args.min_effect)
    except CompareError as exc:
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
