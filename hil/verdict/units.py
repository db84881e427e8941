"""Units the verdict engine understands, and explicit conversion between them.

Convention: storage and bus throughput is reported in MB/s (10^6 bytes per second, as the Rockchip
tables do), network throughput in Mbit/s. Binary units (MiB/s) exist only to convert tool output
(fio, dd) and must never be mixed up with MB/s: 1 MiB/s = 1.048576 MB/s, a 5% difference that is as
large as a typical band tolerance.
"""

from __future__ import annotations

# Each dimension maps unit -> factor to its base unit (bytes/s for throughput, seconds for time).
_DIMENSIONS: dict[str, dict[str, float]] = {
    "throughput": {
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
    "time": {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9},
}

_UNIT_DIMENSION = {unit: dim for dim, units in _DIMENSIONS.items() for unit in units}

KNOWN_UNITS: tuple[str, ...] = tuple(_UNIT_DIMENSION)


def dimension(unit: str) -> str:
    """'throughput' or 'time'; ValueError naming the unit when it is not one this module knows."""
    try:
        return _UNIT_DIMENSION[unit]
    except KeyError:
        raise ValueError(f"unknown unit {unit!r}; known units: {', '.join(KNOWN_UNITS)}") from None


def convertible(from_unit: str, to_unit: str) -> bool:
    """True when a value in from_unit can be compared with one in to_unit.

    Identical units always can (also opaque ones such as "fps"); otherwise both must be known units
    of the same dimension.
    """
    if from_unit == to_unit:
        return True
    return (
        from_unit in _UNIT_DIMENSION
        and to_unit in _UNIT_DIMENSION
        and _UNIT_DIMENSION[from_unit] == _UNIT_DIMENSION[to_unit]
    )


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """value expressed in from_unit, converted to to_unit; ValueError for unknown or incompatible units."""
    source, target = dimension(from_unit), dimension(to_unit)
    if source != target:
        raise ValueError(f"cannot convert {from_unit!r} ({source}) to {to_unit!r} ({target})")
    factors = _DIMENSIONS[source]
    return float(value) * factors[from_unit] / factors[to_unit]
