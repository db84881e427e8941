"""Units the verdict engine understands, grouped by quantity, and explicit conversion between them.

Convention: storage and bus throughput is reported in MB/s (10^6 bytes per second, as the Rockchip
tables do), network throughput in Mbit/s. Binary units (MiB/s) exist only to convert tool output
(fio, dd) and must never be mixed up with MB/s: 1 MiB/s = 1.048576 MB/s, a 5% difference that is as
large as a typical band tolerance.

Two units convert into each other only within one quantity: a band in MiB/s on a MB/s metric is
converted, a band in ms on a MB/s metric is an error.
"""

from __future__ import annotations

from enum import StrEnum


class Quantity(StrEnum):
    """What a unit measures; a metric's band must be given in a unit of the metric's quantity."""

    DATA_RATE = "data rate"  # bytes or bits per second
    TIME = "time"  # latency, jitter, resume time
    FRAME_RATE = "frame rate"  # video frames per second
    FRAMES = "frames"  # frames counted (dropped, corrupt)
    RATIO = "ratio"  # percentages: packet loss, CPU load, efficiency
    OPERATION_RATE = "operation rate"  # I/O operations per second
    COUNT = "count"  # events counted (out-of-order packets, errors, retries)


# Each quantity maps unit -> factor to its base unit (bytes/s, seconds, fps, frames, %, IOPS, count).
_UNITS: dict[Quantity, dict[str, float]] = {
    Quantity.DATA_RATE: {
        "B/s": 1.0,
        "kB/s": 1e3,
        "MB/s": 1e6,
        "GB/s": 1e9,
        "KiB/s": 2.0**10,
        "MiB/s": 2.0**20,
        "GiB/s": 2.0**30,
        "bit/s": 1 / 8,
        "kbit/s": 1e3 / 8,
        "Mbit/s": 1e6 / 8,
        "Gbit/s": 1e9 / 8,
    },
    Quantity.TIME: {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9},
    Quantity.FRAME_RATE: {"fps": 1.0},
    Quantity.FRAMES: {"frames": 1.0},
    Quantity.RATIO: {"%": 1.0},
    Quantity.OPERATION_RATE: {"IOPS": 1.0, "kIOPS": 1e3},
    Quantity.COUNT: {"count": 1.0},
}

_QUANTITY_OF = {unit: quantity for quantity, units in _UNITS.items() for unit in units}

KNOWN_UNITS: tuple[str, ...] = tuple(_QUANTITY_OF)


def quantity(unit: str) -> Quantity:
    """The quantity a unit measures; ValueError naming the known units when it is not one of them."""
    try:
        return _QUANTITY_OF[unit]
    except (KeyError, TypeError):
        raise ValueError(f"unknown unit {unit!r}; known units: {', '.join(KNOWN_UNITS)}") from None


def units_of(kind: Quantity) -> tuple[str, ...]:
    return tuple(_UNITS[kind])


def convertible(from_unit: str, to_unit: str) -> bool:
    """True when a value in from_unit can be compared with one in to_unit (same known quantity)."""
    return from_unit == to_unit or (from_unit in _QUANTITY_OF and _QUANTITY_OF[from_unit] == _QUANTITY_OF.get(to_unit))


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """value expressed in from_unit, converted to to_unit; ValueError for unknown or incompatible units."""
    source, target = quantity(from_unit), quantity(to_unit)
    if source != target:
        raise ValueError(f"cannot convert {from_unit!r} ({source}) to {to_unit!r} ({target})")
    if from_unit == to_unit:
        return float(value)
    factors = _UNITS[source]
    return float(value) * factors[from_unit] / factors[to_unit]
