"""A metric's final verdict: the band's decision (hil.verdict.decide), then what the lab knows of the figure.

`decide` says whether the figure lies inside the band; `final_verdict` says whether it may be called the
board's, by these rules in this order (docs/verdict.md, "The final verdict"):

1. load: the lab PC busy outside hil above boards.yaml's `pc_load_max` turns PASS, MARGINAL or FAIL into
   UNSTABLE: the figure is the PC's neighbours' as much as the board's. Every metric of a check is given its
   check's load: a jitter or CPU companion of a throughput measured on a busy PC is as suspect as it is.
2. baseline: a regression against the baseline turns PASS or MARGINAL into REGRESSION and is named in any
   other verdict's reason (hil.verdict.baseline.apply_baseline).
3. integrity: data corrupted in transfer is a FAIL, a transfer that could not be verified an ERROR, over any
   milder verdict; the rate and its statistics stay for the report.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hil.verdict.baseline import apply_baseline
from hil.verdict.result import BaselineComparison, MetricResult, Verdict


@dataclass(frozen=True)
class PcLoad:
    """The lab PC's CPU use outside hil over a check's counted samples (hil.measure.pcload)."""

    line: str  # its median and highest share, for the report
    busy: bool  # above `bound` (hil's default share when the inventory sets none)
    bound: float | None = None  # boards.yaml's pc_load_max, a fraction; None: recorded, never a verdict

    @property
    def note(self) -> str:
        return f"the lab PC was busy with other work ({self.line}): the figure is not the board's alone"


@dataclass(frozen=True)
class Integrity:
    """What a check's `verify` found: its line for the report, and the verdict it forces (None: intact)."""

    line: str
    verdict: Verdict | None = None
    raw: str = ""


def final_verdict(
    result: MetricResult,
    *,
    pc_load: PcLoad | None = None,
    comparison: BaselineComparison | None = None,
    integrity: Integrity | None = None,
) -> MetricResult:
    """`result` as decided on its band, with the lab's rules applied (module docstring); a new record."""
    result = replace(result, facts=dict(result.facts))
    result = _under_load(result, pc_load)
    if comparison is not None:
        result = apply_baseline(result, comparison)
    return _with_integrity(result, integrity)


def _under_load(result: MetricResult, load: PcLoad | None) -> MetricResult:
    if load is None:
        return result
    result.facts["pc_load"] = load.line
    if not load.busy:
        return result
    result.facts["pc_busy"] = load.note
    if load.bound is None or result.verdict not in (Verdict.PASS, Verdict.MARGINAL, Verdict.FAIL):
        return result
    reason = f"unstable: {load.note} (pc_load_max {load.bound * 100:g}%); {result.reason}"
    return replace(result, verdict=Verdict.UNSTABLE, reason=reason)


def _with_integrity(result: MetricResult, integrity: Integrity | None) -> MetricResult:
    if integrity is None:
        return result
    result.facts["integrity"] = integrity.line
    if integrity.verdict is None or integrity.verdict.severity <= result.verdict.severity:
        return result
    if integrity.verdict is Verdict.FAIL:
        reason = f"data corrupted: {integrity.line.removeprefix('CORRUPTED: ')}; the rate alone: {result.reason}"
    else:
        reason = f"integrity {integrity.line}"
    return replace(result, verdict=integrity.verdict, reason=reason, error_output=integrity.raw or result.error_output)
