"""What calibration proposes: the figures of several runs of one build on one pair, and the band they give.

Per metric and parameters, each run's median (a run is one boot). The proposal:
- the lower edge is MIN_FACTOR x the lowest run median, the upper edge MAX_FACTOR x the highest (the rule of
  the virtual lab's bands in boards.yaml); a band keeps the edges it has (a floor stays a floor), a metric
  without one gets the edge on its worse side (a minimum for a rate, a maximum for a latency);
- run_spread is the relative standard deviation of the run medians, rounded up to a whole percent.
A median of run medians outside the current band by more than that spread is a warning, not a quiet new band.
Plain module: no pytest.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

from hil.records.store import StoredRun
from hil.verdict.baseline import MIN_RUN_SPREAD
from hil.verdict.result import MetricResult, metric_key
from hil.verdict.spec import Band, Direction

MIN_FACTOR = 0.4  # a broken or fallen-back data path, not the machine's mood
MAX_FACTOR = 3.0  # a measurement that bypassed the path (page cache, wrong device)


class CalibrationError(ValueError):
    """Runs that cannot be calibrated from together; the message names the run."""


@dataclass
class Figures:
    """One metric with its parameters, measured in each of the runs."""

    metric: str
    params: dict[str, Any]
    unit: str
    direction: Direction
    run_medians: list[float] = field(default_factory=list)
    cvs: list[float] = field(default_factory=list)

    @property
    def key(self) -> str:
        return metric_key(self.metric, self.params)

    @property
    def center(self) -> float:
        return statistics.median(self.run_medians)

    @property
    def spread(self) -> float | None:
        """Relative standard deviation of the run medians; None with one run."""
        if len(self.run_medians) < 2 or statistics.fmean(self.run_medians) == 0:
            return None
        return statistics.stdev(self.run_medians) / abs(statistics.fmean(self.run_medians))


@dataclass
class Proposal:
    figures: Figures
    current: Band | None  # the band boards.yaml sets now (None: none, or informative)
    band: Band
    run_spread: float  # a fraction, rounded up to a whole percent
    warnings: list[str] = field(default_factory=list)


def _build(stored: StoredRun) -> tuple[Any, ...] | None:
    build = stored.run.build
    if not build:
        return None
    images = sorted((kind, image.get("sha256")) for kind, image in (build.get("images") or {}).items())
    return build.get("name"), build.get("version"), tuple(images)


def check_runs(runs: list[StoredRun], board: str | None) -> str:
    """The one board the runs measured (or `board`); CalibrationError naming a run of another build or board."""
    first = runs[0]
    for stored in runs[1:]:
        if _build(stored) != _build(first):
            raise CalibrationError(
                f"run {stored.run.id} measured build {_name(stored)}, run {first.run.id} build {_name(first)}: "
                "calibrate from runs of one known-good build"
            )
    for stored in runs:
        boards = sorted({result.board for result in stored.results})
        if board is None and len(boards) == 1 and stored is first:
            board = boards[0]
        if board not in boards:
            named = f"pair {board}" if board else "one pair"
            raise CalibrationError(
                f"run {stored.run.id} measured {', '.join(boards) or 'nothing'}, not {named}: "
                "name the pair with --board, and give runs of that pair"
            )
    assert board is not None
    return board


def _name(stored: StoredRun) -> str:
    build = stored.run.build
    return f"{build.get('name')} {build.get('version')}" if build else "(none named)"


def figures(runs: list[StoredRun], board: str) -> list[Figures]:
    """Each metric of `board` with a median per run that measured it (its last result in that run)."""
    found: dict[str, Figures] = {}
    for stored in runs:
        last: dict[str, MetricResult] = {}
        for result in stored.results:
            if result.board == board and result.values:
                last[result.key] = result
        for key, result in last.items():
            entry = found.setdefault(key, Figures(result.metric, result.params, result.unit, result.direction))
            entry.run_medians.append(result.stats.median if result.stats else statistics.median(result.values))
            if result.stats:
                entry.cvs.append(result.stats.cv)
    return [found[key] for key in sorted(found)]


def significant(value: float, *, up: bool) -> float:
    """`value` to 3 significant figures, rounded away from the band's inside (a floor down, a ceiling up)."""
    if value <= 0:
        return 0.0
    step = 10.0 ** (math.floor(math.log10(value)) - 2)
    return round((math.ceil(value / step - 1e-9) if up else math.floor(value / step + 1e-9)) * step, 10)


def propose(
    found: Figures,
    current: Band | None,
    max_cv: float | None,
    *,
    factors: tuple[float, float] = (MIN_FACTOR, MAX_FACTOR),
    needs_max: bool = False,
) -> Proposal | None:
    """A band from the run medians (`factors` x the lowest, x the highest); with no band today, a rate on an emulated
    link (`needs_max`) gets a max too. None when the figures set no edge (a share whose max would reach 100%)."""
    lowest, highest = min(found.run_medians), max(found.run_medians)
    has_low = current.low is not None if current else found.direction is Direction.HIGHER
    has_high = current.high is not None if current else found.direction is Direction.LOWER or needs_max
    low = significant(factors[0] * lowest, up=False) if has_low else None
    high = significant(factors[1] * highest, up=True) if has_high else None
    if high is not None and found.unit == "%" and high >= 100:
        high = None  # a share: 3x a core 92% busy would bound nothing (the loader refuses a max of 100% or more)
    if low is None and high is None:
        return None
    spread = max(found.spread or 0.0, MIN_RUN_SPREAD)
    proposal = Proposal(found, current, Band(low, high), math.ceil(spread * 100 - 1e-9) / 100)
    center = found.center
    what = f"{found.key}: the median of the run medians, {center:.4g} {found.unit},"
    check = f"by more than the run spread ({spread:.1%}): check the board and the build before taking this band"
    if current is not None and current.low is not None and center < current.low * (1 - spread):
        proposal.warnings.append(f"{what} is below the current band's min {current.low:g} {check}")
    if current is not None and current.high is not None and center > current.high * (1 + spread):
        proposal.warnings.append(f"{what} is above the current band's max {current.high:g} {check}")
    if max_cv is not None and found.cvs and max(found.cvs) > max_cv:
        proposal.warnings.append(
            f"{found.key}: samples spread up to CV {max(found.cvs):.1%}, above its max_cv "
            f"{max_cv:.0%}: its figures were not settled (a busy machine?)"
        )
    return proposal
