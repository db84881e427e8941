"""What one run of a tool yields: named quantities with their units, and the raw output they came from.

A tool wrapper in hil/measure returns a `Measurement`; the sampler takes from it the quantity each
metric of the catalogue reads (its `field`) and converts it into the metric's canonical unit. One run
may feed several metrics (iperf3 UDP: bandwidth, jitter and loss; fio: bandwidth, IOPS and latency).

    Measurement(
        {"throughput": Quantity(134217728 / 1.07, "B/s")},
        raw=dd_output,
        details={"bytes": 134217728},
    )
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hil.verdict.units import dimension


@dataclass(frozen=True)
class Quantity:
    """A number with its unit, as the tool reported it (bytes per second, milliseconds, percent...)."""

    value: float
    unit: str

    def __post_init__(self) -> None:
        if isinstance(self.value, bool) or not isinstance(self.value, int | float):
            raise TypeError(f"a quantity's value must be a number, got {type(self.value).__name__}")
        if not math.isfinite(self.value):
            raise ValueError(f"a quantity must be a finite number, got {self.value!r}")
        dimension(self.unit)  # an unknown unit is a programming error in the tool wrapper: fail loudly

    def __str__(self) -> str:
        return f"{self.value:g} {self.unit}"


@dataclass
class Measurement:
    """One run of a tool: the quantities it produced (by field name), its raw output and what it ran with.

    `started` (epoch seconds) and `duration_s` default to what the sampler observes around the call;
    a wrapper that knows better (the tool's own timing) sets them. `bytes_received` is what the receiving
    side of a network tool got, which the lab's interface counters must match (hil.measure.netpath).
    `details` are per-run facts worth keeping beside the numbers (frames seen, per-CPU load): they are
    stored with the samples, not gated, and no other layer reads them.
    """

    values: Mapping[str, Quantity]
    raw: str = ""
    started: float | None = None
    duration_s: float | None = None
    details: dict[str, Any] = field(default_factory=dict)
    bytes_received: int | None = None

    def __post_init__(self) -> None:
        for name, quantity in self.values.items():
            if not isinstance(quantity, Quantity):
                raise TypeError(f"measurement field {name!r} must be a Quantity, got {type(quantity).__name__}")

    def quantity(self, name: str) -> Quantity | None:
        return self.values.get(name)
