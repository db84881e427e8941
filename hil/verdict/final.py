"""A metric's final verdict: the band's decision (hil.verdict.decide), then what the lab knows of the figure.

`decide` says whether the figure lies inside the band; `final_verdict` says whether it may be called the
board's, by these rules in this order (docs/verdict.md, "The final verdict"):

1. load: the lab PC busy outside hil above boards.yaml's `pc_load_max` turns PASS, MARGINAL or FAIL into
   UNSTABLE: the figure is the PC's neighbours' as much as the board's. Every metric of a check is given its
   check's load: a jitter or CPU companion of a throughput measured on a busy PC is as suspect as it is.
   operating point: a counted sample during which the board left its operating point (a core offline, the
   clock moved, throttling, a PCIe link retrained, AER errors: hil.measure.operating_point.moved) turns PASS,
   MARGINAL or FAIL into UNSTABLE naming what moved: the figure is not the board's as declared. Temperatures and
   USB resets are recorded, never decided on.
2. baseline: a regression against the baseline turns PASS or MARGINAL into REGRESSION and is named in any
   other verdict's reason (hil.verdict.baseline.apply_baseline).
3. integrity: data corrupted in transfer is a FAIL, a transfer that could not be verified an ERROR, over any
   milder verdict; the rate and its statistics stay for the report.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from hil.facts import Facts
from hil.verdict.baseline import apply_baseline
from hil.verdict.result import BaselineComparison, MetricResult, Verdict


@dataclass(frozen=True)
class PcLoad:
    """The lab PC's CPU use outside hil over a check's counted samples (hil.measure.pcload)."""

    line: str  # its median and highest share, for the report
    busy: bool  # above `bound` (hil's default share when the inventory sets none)
    bound: float | None = None  # boards.yaml's pc_load_max, a fraction; None: recorded, never a verdict

    @property
    def off(self) -> bool:
        return self.busy

    @property
    def note(self) -> str:
        return f"the lab PC was busy with other work ({self.line}): the figure is not the board's alone"

    @property
    def unstable(self) -> str | None:
        """Why the figure is not the board's (an UNSTABLE's reason); None: recorded, never a verdict."""
        return f"{self.note} (pc_load_max {self.bound * 100:g}%)" if self.busy and self.bound is not None else None

    def record(self, facts: Facts) -> None:
        facts.pc_load = self.line
        if self.busy:
            facts.pc_busy = self.note


@dataclass(frozen=True)
class OperatingPoint:
    """The board's operating point over a check's counted samples (hil.measure.operating_point)."""

    line: str  # where it stood, for the report
    moves: tuple[str, ...] = ()  # what moved, per sample ("sample 3: cpu1 went offline")

    @property
    def off(self) -> bool:
        return bool(self.moves)

    @property
    def note(self) -> str:
        return f"the board left its operating point ({'; '.join(self.moves)})"

    @property
    def unstable(self) -> str | None:
        return self.note if self.moves else None

    def record(self, facts: Facts) -> None:
        facts.operating_point = self.line
        if self.moves:
            facts.operating_point_moved = self.note


class Found(StrEnum):
    """What a check's integrity verification concluded."""

    INTACT = "intact"
    CORRUPTED = "CORRUPTED"  # a FAIL over any milder verdict
    NOT_VERIFIED = "not verified"  # an ERROR: the transfer could not be checked


@dataclass(frozen=True)
class Integrity:
    """What a check's `verify` found: the finding ("4 MiB compared", "byte 12 differs"), what it concludes, and the
    tool's output behind it."""

    finding: str
    found: Found = Found.INTACT
    raw: str = ""

    @property
    def verdict(self) -> Verdict | None:
        """The verdict it forces; None: intact."""
        return {Found.CORRUPTED: Verdict.FAIL, Found.NOT_VERIFIED: Verdict.ERROR}.get(self.found)

    @property
    def line(self) -> str:
        """For the report: the finding, after what it concludes when that is not intact."""
        return self.finding if self.found is Found.INTACT else f"{self.found}: {self.finding}"


def final_verdict(
    result: MetricResult,
    *,
    pc_load: PcLoad | None = None,
    operating_point: OperatingPoint | None = None,
    comparison: BaselineComparison | None = None,
    integrity: Integrity | None = None,
) -> MetricResult:
    """`result` as decided on its band, with the lab's rules applied (module docstring); a new record."""
    result = replace(result, facts=result.facts.copy())
    for condition in (pc_load, operating_point):
        if condition is not None:
            condition.record(result.facts)
            result = result if condition.unstable is None else _unstable(result, condition.unstable)
    if comparison is not None:
        result = apply_baseline(result, comparison)
    return _with_integrity(result, integrity)


def _unstable(result: MetricResult, why: str) -> MetricResult:
    """A band's verdict (PASS, MARGINAL, FAIL) the lab cannot vouch for is UNSTABLE, saying why; others stay."""
    if result.verdict not in (Verdict.PASS, Verdict.MARGINAL, Verdict.FAIL):
        return result
    return replace(result, verdict=Verdict.UNSTABLE, reason=f"unstable: {why}; {result.reason}")


def _with_integrity(result: MetricResult, integrity: Integrity | None) -> MetricResult:
    if integrity is None:
        return result
    result.facts.integrity = integrity.line
    if integrity.verdict is None or integrity.verdict.severity < result.verdict.severity:
        return result
    # A rate that FAILs its band on corrupted data says the corruption first: it is the stronger finding.
    if integrity.verdict.severity == result.verdict.severity and integrity.verdict is not Verdict.FAIL:
        return result
    if integrity.verdict is Verdict.FAIL:
        reason = f"data corrupted: {integrity.finding}; the rate alone: {result.reason}"
    else:
        reason = f"integrity {integrity.line}"
    return replace(result, verdict=integrity.verdict, reason=reason, error_output=integrity.raw or result.error_output)
