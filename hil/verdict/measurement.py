"""What one run of a tool yields: named quantities with their units, and the raw output they came from.

A tool wrapper in hil/measure returns a `Measurement`; the sampler takes from it the quantity each
metric of the catalogue reads (its `field`) and converts it into the metric's canonical unit. One run
may feed several metrics (iperf3 UDP: bandwidth, jitter and loss; fio: bandwidth, IOPS and latency).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hil.verdict import units


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
        units.quantity(self.unit)  # an unknown unit is a programming error in the tool wrapper: fail loudly

    def __str__(self) -> str:
        return f"{self.value:g} {self.unit}"


@dataclass(frozen=True)
class CpuShare:
    """Percent of one CPU's time between two /proc/stat snapshots."""

    user: float
    system: float
    irq: float
    softirq: float
    iowait: float
    idle: float

    @property
    def irq_softirq(self) -> float:
        return self.irq + self.softirq

    @property
    def busy(self) -> float:
        return 100.0 - self.idle - self.iowait


@dataclass(frozen=True)
class CpuLoad:
    """The measuring role's per-CPU load over one run ("cpu" is the total, "cpuN" each core)."""

    role: str
    cpus: dict[str, CpuShare]

    @property
    def busiest(self) -> float | None:
        """The busy share of the busiest core (the total when no core is listed); None when no clock tick
        passed during the run (no load to tell)."""
        cores = [share.busy for name, share in self.cpus.items() if name != "cpu"]
        return max(cores or [share.busy for share in self.cpus.values()], default=None)


@dataclass(frozen=True)
class InterfaceCounters:
    """A network interface's counters (sysfs statistics/) before and after one run, and where it is."""

    interface: str
    role: str
    before: dict[str, int]
    after: dict[str, int]


@dataclass(frozen=True)
class OperatingPointChange:
    """What moved of a role's operating point while one run went on (hil.measure.operating_point), and where
    it ended: each CPU's clock and each thermal zone's temperature after the run."""

    role: str
    moved: list[str]
    temp_c: dict[str, float] = field(default_factory=dict)
    freq_khz: dict[str, int] = field(default_factory=dict)


@dataclass
class Observed:
    """What hil observed around one run, beside the tool's own figures, for the layers above to read: the
    facts and warnings of a result (per-CPU load, interface errors) and the lab PC's-load verdict."""

    cpu_load: CpuLoad | None = None  # the measuring role's (hil.measure.cpuload)
    pc_load: float | None = None  # % of the lab PC's CPUs busy outside hil (hil.measure.pcload)
    pc_emulators: float | None = None  # % of them busy in the lab's own board emulators outside hil's tree
    interface: InterfaceCounters | None = None  # the path's recorded interface (hil.measure.netpath)
    bytes_moved: dict[str, int] = field(default_factory=dict)  # per counted direction, "tx"/"rx" bytes (netpath)
    operating_point: OperatingPointChange | None = None  # the measuring role's (hil.measure.operating_point)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Observed:
        """From results.json (asdict's form)."""
        cpu, interface, point = data.get("cpu_load"), data.get("interface"), data.get("operating_point")
        return cls(
            cpu_load=CpuLoad(cpu["role"], {n: CpuShare(**s) for n, s in cpu["cpus"].items()}) if cpu else None,
            pc_load=data.get("pc_load"),
            pc_emulators=data.get("pc_emulators"),
            interface=InterfaceCounters(**interface) if interface else None,
            bytes_moved=dict(data.get("bytes_moved") or {}),
            operating_point=OperatingPointChange(**point) if point else None,
        )


@dataclass
class Measurement:
    """One run of a tool: the quantities it produced (by field name), its raw output and what it ran with."""

    values: Mapping[str, Quantity]
    raw: str = ""
    started: float | None = None  # epoch seconds; None: what the sampler observes around the call
    duration_s: float | None = None  # None: likewise; a wrapper that knows better (the tool's own timing) sets them
    # The tool's own per-run facts (frames seen, options it echoed): stored with the samples, not gated, and read
    # by no layer but a diagnosis that ran the tool itself (hil.diagnose.network weighs the socket's drops).
    details: dict[str, Any] = field(default_factory=dict)
    bytes_received: int | None = None  # a network tool's receiver's: the counters must match (hil.measure.netpath)
    observed: Observed = field(default_factory=Observed)  # what hil saw around the run (CPU loads, counters)

    def __post_init__(self) -> None:
        for name, quantity in self.values.items():
            if not isinstance(quantity, Quantity):
                raise TypeError(f"measurement field {name!r} must be a Quantity, got {type(quantity).__name__}")
