"""What a metric must prove: its unit, direction, band, stability and sampling limits.

Plain data, no pytest and no board: the inventory builds these from boards.yaml, the sampler reads them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import StrEnum


class Direction(StrEnum):
    HIGHER = "higher"  # throughput, frame rate: more is better
    LOWER = "lower"  # latency, resume time, CPU load: less is better


@dataclass(frozen=True)
class Band:
    """The accepted interval [low, high]; either edge may be open (None)."""

    low: float | None = None
    high: float | None = None

    def __post_init__(self) -> None:
        if self.low is None and self.high is None:
            raise ValueError("a band needs at least one edge (min or max)")
        for edge in (self.low, self.high):
            if edge is not None and not math.isfinite(edge):
                raise ValueError(f"band edge {edge!r} is not a finite number")
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError(f"band min {self.low} is above max {self.high}")

    @classmethod
    def around(cls, nominal: float, tolerance: float, *, relative: bool) -> Band:
        """nominal ± tolerance; relative tolerances are fractions of the nominal (0.1 = 10%)."""
        delta = abs(nominal) * tolerance if relative else tolerance
        return cls(nominal - delta, nominal + delta)

    def contains(self, value: float) -> bool:
        return self.side(value) is None

    def side(self, value: float) -> str | None:
        """'low' or 'high' when value lies outside the band, None inside."""
        if self.low is not None and value < self.low:
            return "low"
        if self.high is not None and value > self.high:
            return "high"
        return None

    def describe(self, unit: str = "") -> str:
        suffix = f" {unit}" if unit else ""
        if self.low is not None and self.high is not None:
            return f"[{self.low:g}, {self.high:g}]{suffix}"
        if self.low is not None:
            return f">= {self.low:g}{suffix}"
        return f"<= {self.high:g}{suffix}"


@dataclass(frozen=True)
class Ceiling:
    """The physical limit of the link a metric crosses; a sample above it is a wrong measurement."""

    value: float
    unit: str
    basis: str  # how it was derived, e.g. "USB 2.0 high-speed bulk, 13 x 512 B per microframe"
    # False on an emulated link (dummy_hcd copies memory, it has no bus): the figure is shown as a
    # reference and efficiency is computed against it, but a sample above it is no error.
    enforced: bool = True


@dataclass(frozen=True)
class Floor:
    """The least a figure can be when the device follows its standard (USB 2.0's resume signalling): a
    sample below it is a finding about the board, a FAIL whatever the band says (too good to be compliant)."""

    value: float
    unit: str
    basis: str  # the clause and its terms, e.g. "USB 2.0 §7.1.7.7: TDRSMDN >= 20 ms + TRSMRCY 10 ms"

    def describe(self) -> str:
        return f"{self.value:g} {self.unit} ({self.basis})"


@dataclass(frozen=True)
class MetricSpec:
    """Everything the verdict needs to know about one metric on one board, with one parameter set."""

    metric: str  # dotted name, e.g. "usb.msc.read"
    unit: str
    direction: Direction
    band: Band | None  # None: informative, recorded but not gated
    max_cv: float = 0.05  # coefficient of variation, as a fraction (0.05 = 5%)
    min_samples: int = 5
    max_samples: int = 20
    budget_s: float = 300.0  # wall clock for all samples of this metric, warm-up included
    warmup: int = 1  # samples taken and stored but not counted
    min_effect: float = 0.05  # smallest change against a baseline that counts as a regression (fraction)
    min_run_spread: float = 0.01  # least relative SD of run medians between clean boots (boards.yaml run_spread)
    confidence: float = 0.95
    ceiling: Ceiling | None = None
    floor: Floor | None = None
    fixed_samples: int | None = None  # --samples N: exactly N samples, no adaptive stop
    params: dict[str, object] = field(default_factory=dict, compare=False)
    reads: str = "value"  # which quantity of a tool's Measurement this metric takes
    check_cv: bool = True  # False: the spread says nothing about stability (loss, dropped frames)
    pc_load_max: float | None = None  # share of the lab PC's CPUs busy outside hil above which no figure counts
    band_source: str | None = None  # where boards.yaml says the band comes from (a datasheet, a calibration)

    @property
    def gated(self) -> bool:
        return self.band is not None

    def __post_init__(self) -> None:
        if self.min_samples < 2:
            raise ValueError(f"{self.metric}: min_samples must be >= 2 (a spread needs two samples)")
        if self.max_samples < self.min_samples:
            raise ValueError(f"{self.metric}: max_samples {self.max_samples} < min_samples {self.min_samples}")
        if not self.max_cv > 0:
            raise ValueError(f"{self.metric}: max_cv must be > 0")
        if self.warmup < 0:
            raise ValueError(f"{self.metric}: warmup must be >= 0")
        if self.budget_s <= 0:
            raise ValueError(f"{self.metric}: budget_s must be > 0")
        if not 0 < self.confidence < 1:
            raise ValueError(f"{self.metric}: confidence must lie in (0, 1)")
        if self.fixed_samples is not None and self.fixed_samples < 2:
            raise ValueError(f"{self.metric}: a fixed sample count must be >= 2")

    def with_fixed_samples(self, count: int | None) -> MetricSpec:
        return self if count is None else replace(self, fixed_samples=count)
