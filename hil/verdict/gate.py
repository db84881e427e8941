"""The release gate: may the candidate build ship, against the stored runs of a reference build?

A pure function of two builds' stored results (per board and metric key, one result per run) and the thresholds
of the inventory in force; `hil compare`, `--reference-build` and the dashboard render its decision and decide
nothing. Per board and metric: the run-level comparison of hil.verdict.baseline against the reference runs, the
candidate's band verdicts, and the smallest drop the row could have caught (hil.verdict.sensitivity). One gate
over all rows, BLOCKED, INCOMPLETE or PASS, by the rules of docs/release-gate.md.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from hil.facts import board_of, other_board
from hil.verdict import decide as band_rules
from hil.verdict import sensitivity
from hil.verdict.baseline import (
    MIN_RUN_SPREAD,
    PRIOR_RUNS,
    BaselineComparison,
    RunSpread,
    compare,
    pool,
    run_spread,
    wider_than,
    worsening,
)
from hil.verdict.result import CLOCK_PARAM, MetricResult, Verdict, metric_key
from hil.verdict.spec import Direction, MetricSpec
from hil.verdict.stats import describe

WITHOUT_VERDICT = (Verdict.ERROR, Verdict.UNSTABLE)
# The verdicts a result's samples alone give: the lab's rules after the band's only ever make one worse
# (hil.verdict.final), so a stored one of these is what its samples say, or a lie.
SAMPLED = (Verdict.INFO, Verdict.PASS, Verdict.MARGINAL)
Results = dict[tuple[str, str], list[MetricResult]]  # (board, metric key) -> its result in each run, oldest first


class Gate(StrEnum):
    PASS = "PASS"
    BLOCKED = "BLOCKED"
    INCOMPLETE = "INCOMPLETE"


@dataclass(frozen=True)
class Thresholds:
    """What decides a regression of one metric: from the inventory in force."""

    min_effect: float
    run_spread: float  # the pair's calibrated run-to-run spread (boards.yaml run_spread)
    check_cv: bool = True  # the catalogue's: whether the metric's spread is gated (MetricSpec.check_cv)


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
class Decision:
    gate: Gate
    summary: str  # the gate line
    rows: list[Row]


def decide(
    reference: Results, candidate: Results, rules: dict[tuple[str, str], Thresholds], min_effect: float | None = None
) -> Decision:
    """The gate of `candidate` against `reference`; `rules`: each key's thresholds; `min_effect`: one for every
    metric instead of each one's own."""
    rows = []
    units = {found: runs[0].unit for found, runs in reference.items()}
    board_units = {(board, unit) for (board, _), unit in units.items()}  # once each: a board has many keys per unit
    medians = {(board, unit): _run_medians(reference, board, unit) for board, unit in board_units}
    pooled = {board_unit: pool(board_medians) for board_unit, board_medians in medians.items()}
    for board, key in sorted(set(reference) | set(candidate)):
        found = reference.get((board, key), []), candidate.get((board, key), [])
        board_unit = (board, units.get((board, key)))
        same_unit = medians.get(board_unit, {}), pooled.get(board_unit, (0.0, 0))
        rows.append(_row(board, key, *found, *same_unit, rules[(board, key)], min_effect))
    _name_other_clocks(rows, reference, candidate)
    effect = lambda key: rules[key].min_effect if min_effect is None else min_effect  # noqa: E731  (as _row's)
    for row in rows:
        if row.gate is Gate.BLOCKED and row.change is not None:
            found = reference[(row.board, row.key)], candidate[(row.board, row.key)]
            row.diagnosis += _between(row, rows, *found, effect)
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
    return Decision(gate, summary, rows)


def _run_medians(results: Results, board: str, unit: str) -> dict[str, list[float]]:
    """The run medians of every metric of `board` in `unit` (hil.verdict.baseline.run_spread)."""
    return {
        key: [statistics.median(r.values) for r in runs if len(r.values) >= 1]
        for (b, key), runs in results.items()
        if b == board and runs[0].unit == unit
    }


def band_verdict(result: MetricResult, check_cv: bool = True) -> tuple[Verdict, str]:
    """The verdict `result` stands for, and why: the one stored, unless that is SAMPLED and its samples give none
    of those by hil.verdict.decide's rules (FAIL, UNSTABLE, ERROR above the ceiling; `check_cv`: whether its
    spread is gated), or it has no band (INFO): a stored PASS is never taken on its word (a file could claim PASS
    for 1e308 MB/s). Fewer than 2 samples give none: the stored verdict."""
    if result.verdict not in SAMPLED or len(result.values) < 2:
        return result.verdict, result.reason
    given = band_rules.Decision(Verdict.INFO, "no band: recorded, not gated")
    if result.band is not None:
        confidence = result.stats.confidence if result.stats is not None else 0.95
        try:
            spec = MetricSpec(
                result.metric, result.unit, result.direction, result.band, max_cv=result.max_cv,
                confidence=confidence, ceiling=result.ceiling, check_cv=check_cv,
            )  # fmt: skip
            # decide's first rule, before statistics that 1e308s overflow
            given = band_rules.ceiling_error(max(result.values), spec.unit, spec.ceiling, what="the highest sample")
            if given is None:
                stats = describe(result.values, confidence)
                if not math.isfinite(stats.mean + stats.std):
                    raise ValueError("they overflow: no mean, no spread")
                given = band_rules.decide(stats, spec, final=True)  # final: as the sampler decided when it stopped
        except ValueError as exc:  # a mean of 0 (no CV), a max_cv or a confidence no metric has
            given = band_rules.Decision(Verdict.ERROR, f"no statistics: {exc}")
    if given.verdict is result.verdict or (result.band is not None and given.verdict in SAMPLED):
        return result.verdict, result.reason
    return given.verdict, f"stored {result.verdict}, its samples give {given.verdict}: {given.reason}"


def _band_gate(candidate: list[MetricResult], measured: list[list[float]], check_cv: bool) -> tuple[Gate, str, str]:
    """The candidate's own verdicts (band_verdict): (gate, why, worst verdict). A PASS without samples is no
    verdict."""
    judged = [band_verdict(r, check_cv) for r in candidate]
    verdicts = [verdict for verdict, _ in judged]
    worst = next((v for v in (Verdict.FAIL, Verdict.ERROR, Verdict.UNSTABLE) if v in verdicts), verdicts[-1])
    if worst is Verdict.FAIL:
        return Gate.BLOCKED, f"band: {next(why for v, why in judged if v is Verdict.FAIL)}", str(worst)
    if worst in WITHOUT_VERDICT:
        reason = next(why for v, why in judged if v is worst)
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
    pooled: tuple[float, int],
    rules: Thresholds,
    min_effect: float | None,
) -> Row:
    if not candidate:
        why = "not measured in the candidate"
        return Row(board, key, reference[0].unit, Gate.INCOMPLETE, why, reference_runs=len(reference))
    last = candidate[-1]
    effect = rules.min_effect if min_effect is None else min_effect
    spread = run_spread(board_medians, key, rules.run_spread, pooled)  # the reference runs of every metric of the board
    measured = [r.values for r in candidate if len(r.values) >= 2]
    gate, band_why, worst = _band_gate(candidate, measured, rules.check_cv)
    row = Row(board, key, last.unit, gate, "", band_verdict=worst, reference_runs=len(reference))
    diagnosed = [r.facts.notes["diagnosis"] for r in candidate if r.facts.notes.get("diagnosis")]
    row.diagnosis = list(diagnosed[-1]) if diagnosed else []
    reasons = [band_why] if band_why else []
    if other := other_board([board_of(r.facts.identity()) for r in reference], board_of(last.facts.identity())):
        reasons.append(other)
    if measured:
        row.candidate_median = statistics.median(statistics.median(v) for v in measured)
    baseline = [r.values for r in reference if len(r.values) >= 1]
    if not reference:
        reasons.append("new: no reference run measured it")
    elif measured and sum(len(v) for v in baseline) >= 2:
        gate = _compared(row, gate, reasons, measured, baseline, spread, rules, effect, last.direction)
    elif measured:
        reasons.append("the reference runs have fewer than 2 samples of it: no comparison")
    row.gate, row.why = gate, "; ".join(reasons)
    return row


def _compared(
    row: Row,
    gate: Gate,
    reasons: list[str],
    measured: list[list[float]],
    baseline: list[list[float]],
    spread: RunSpread | None,
    rules: Thresholds,
    effect: float,
    direction: Direction,
) -> Gate:
    """The row's comparison with the reference runs: its figures into `row`, its reasons onto `reasons`; the gate
    after it (`gate`: the candidate's band gate)."""
    spread = _shown_spread(spread, rules)
    comparison = compare(
        measured,
        baseline,
        direction=direction,
        min_effect=effect,
        spread=spread,
        baseline_run=f"{len(baseline)} reference run{'s' if len(baseline) != 1 else ''}",
        more_runs="measure the reference build again, or calibrate the pair",
    )
    unshown = comparison.regression and spread is None  # a drop against one run of a pair that showed no spread
    row.reference_median, row.change = comparison.baseline_median, comparison.change
    row.regression, row.p_value, row.run_p = comparison.regression and not unshown, comparison.p_value, comparison.run_p
    samples = (sum(len(v) for v in measured), sum(len(v) for v in baseline))
    row.smallest_drop = sensitivity.smallest_drop(spread, len(baseline), len(measured), samples, effect)
    wide = rules.run_spread != MIN_RUN_SPREAD and spread is not None and wider_than(spread, rules.run_spread)
    blind = row.smallest_drop is not None and row.smallest_drop > effect and spread is not None
    if row.regression:
        gate = Gate.BLOCKED
    elif (doubt := _doubt(row, comparison, spread, rules, wide, unshown, direction)) is not None and (
        gate is Gate.PASS or unshown
    ):
        gate = Gate.INCOMPLETE if gate is Gate.PASS else gate
        if doubt:
            reasons.append(doubt)
    reasons.append(comparison.reason.replace("regression against", "worse than", 1) if unshown else comparison.reason)
    reasons.append(sensitivity.describe(row.smallest_drop, samples))
    if blind:
        more = _what_would_see(row, rules.run_spread if wide else spread.relative_sd, effect, len(measured))
        reasons.append(more + (" (at the calibrated spread)" if wide else ""))
    return gate


def _shown_spread(spread: RunSpread | None, rules: Thresholds) -> RunSpread | None:
    """The spread between runs a comparison is held to. With one reference run on the board it is the pair's
    calibrated run_spread, the spread the pair has shown (PRIOR_RUNS runs of weight); a pair never calibrated has
    shown none (None), and a drop against one of its runs cannot block."""
    if spread is None and rules.run_spread != MIN_RUN_SPREAD:
        how = f"the pair's calibrated {rules.run_spread * 100:.2g}% (boards.yaml run_spread): one reference run"
        return RunSpread(rules.run_spread, PRIOR_RUNS, how)
    return spread


def _doubt(
    row: Row,
    comparison: BaselineComparison,
    spread: RunSpread | None,
    rules: Thresholds,
    wide: bool,
    unshown: bool,
    direction: Direction,
) -> str | None:
    """Why a row that is no regression still cannot pass ("": it could catch no drop at all); None: it can."""
    worse = worsening(comparison.change, direction)
    if unshown:
        return (
            f"cannot tell: a {worse:.1%} worsening against one reference run of a pair that has shown no spread "
            "between runs (no second reference run, no calibrated run_spread): measure the reference build again, "
            "or calibrate the pair (hil calibrate)"
        )
    if wide and spread is not None:
        # Reference runs that moved more than the pair was calibrated to (a loaded lab PC while they ran):
        # a gate that cannot see, not a pass.
        return (
            f"cannot tell: the reference runs spread {spread.relative_sd:.1%}, more than the pair's "
            f"calibrated {rules.run_spread * 100:.2g}% (boards.yaml run_spread) beyond chance ({spread.df} df, 5%): "
            "measure the reference again on a quiet lab"
        )
    if row.smallest_drop is None:
        return ""
    if worse >= comparison.min_effect and comparison.p_value < comparison.alpha and not comparison.regression:
        # Worse by min_effect and significant within the runs, yet not beyond their spread: "no regression" would
        # claim what the comparison could not see (a CI run, 2026-11-28: -27.4% PASSed).
        return (
            f"cannot tell: a {worse:.1%} worsening, significant within the runs, is within what runs of one build move"
        )
    return None


def _what_would_see(row: Row, spread: float, effect: float, candidate_runs: int) -> str:
    """For a row blind to a drop of `effect`: the reference runs that would see one (into `row`), or that none
    would."""
    row.runs_needed = sensitivity.runs_needed(spread, effect, candidate_runs)
    if row.runs_needed:
        return f"{row.runs_needed} reference runs would catch a {effect:.0%} drop"
    return (
        f"no number of reference runs would let {candidate_runs} candidate run(s) show a {effect:.0%} drop at a "
        f"{spread:.0%} spread: measure the candidate more times"
    )


def _unclocked(board: str, result: MetricResult) -> tuple[tuple[str, str], str]:
    """(board, the result's key without its clock parameter), and the clock it was measured on."""
    params = dict(result.params)
    clock = str(params.pop(CLOCK_PARAM, "real"))
    return (board, metric_key(result.metric, params)), clock


# What a result's facts say of the software and the link it measured: a move of one between the builds is a lead.
MOVED_FACTS = ("kernel", "build", "bootloader", "tuning", "link_speed", "link_driver", "operating_point_moved")


def _between(
    row: Row,
    rows: list[Row],
    reference: list[MetricResult],
    candidate: list[MetricResult],
    effect: Callable[[tuple[str, str]], float],
) -> list[str]:
    """A BLOCKED row against its reference, from what each side stored: the facts that moved between the builds,
    its companions' figures (`<metric>.cpu_busiest`: the CPU the transfer cost) and whether the board's other
    figures moved beyond their own min_effect (`effect`, by (board, key)): one path's loss, or the board's."""
    lines = []
    stored = [result.facts.to_dict() for result in reference]
    for name, value in sorted(candidate[-1].facts.to_dict().items()):
        if name.partition(".")[0] not in MOVED_FACTS or name == "build":  # the build's name: moved by definition
            continue
        before = sorted({str(facts.get(name, "not recorded")) for facts in stored})
        if before != [value]:
            lines.append(f"between builds: {name} {' / '.join(before)} -> {value}")
    metric, _, params = row.key.partition("[")
    others = [o for o in rows if o.board == row.board and o is not row and o.change is not None]
    for other in others:
        if other.key.startswith(metric + ".") and other.key.endswith(f"[{params}" if params else ""):
            figures = f"{_figure(other.reference_median)} -> {_figure(other.candidate_median)} {other.unit}"
            lines.append(f"between builds: {other.key} {figures} ({other.change:+.1%})")
    rest = [o for o in others if not o.key.startswith(metric + ".")]
    moved = [o for o in rest if abs(o.change or 0) >= effect((o.board, o.key)) > 0]
    named = ", ".join(f"{o.key} {o.change:+.1%}" for o in moved[:4]) + (" ..." if len(moved) > 4 else "")
    if not rest:
        return lines
    if not moved:
        return [*lines, f"between builds: none of the board's {len(rest)} other figures moved by its min_effect"]
    return [*lines, f"between builds: {len(moved)} of the board's {len(rest)} other figures moved too ({named})"]


def _figure(value: float | None) -> str:
    return "?" if value is None else f"{value:.4g}"


def _name_other_clocks(rows: list[Row], ref: Results, cand: Results) -> None:
    """A metric one side measured on the virtual clock and the other on the real one (its key with and without
    clock=virtual) is two rows of one side each, never compared: each says so."""
    sides = {"reference": ref, "candidate": cand}
    clocks = {name: dict(_unclocked(b, runs[0]) for (b, _), runs in found.items()) for name, found in sides.items()}
    for row in rows:
        if (row.board, row.key) in ref and (row.board, row.key) in cand:
            continue  # compared
        mine, other = ("reference", "candidate") if (row.board, row.key) in ref else ("candidate", "reference")
        unclocked, clock = _unclocked(row.board, sides[mine][(row.board, row.key)][0])
        there = clocks[other].get(unclocked)
        if there is not None and there != clock:
            row.why += (
                f"; the {other} measured it on the {there} clock, the {mine} on the {clock}: figures of two clocks "
                "are not compared (measure the reference on the pair's clock)"
            )
