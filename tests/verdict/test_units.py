"""Unit conversion: one convention (MB/s = 10^6 B/s), explicit conversion, loud failures."""

from __future__ import annotations

import pytest

from hil.verdict.ceilings import convert, efficiency
from hil.verdict.spec import Ceiling
from hil.verdict.units import KNOWN_UNITS, Quantity, convertible, quantity, units_of


@pytest.mark.parametrize(
    ("value", "source", "target", "expected"),
    [
        (1.0, "MiB/s", "MB/s", 1.048576),
        (1.0, "GiB/s", "MiB/s", 1024.0),
        (1.0, "GB/s", "MB/s", 1000.0),
        (1000.0, "kB/s", "MB/s", 1.0),
        (1.0, "MB/s", "B/s", 1e6),
        (8.0, "Mbit/s", "MB/s", 1.0),
        (1.0, "Gbit/s", "Mbit/s", 1000.0),
        (1000.0, "kbit/s", "Mbit/s", 1.0),
        (8e6, "bit/s", "MB/s", 1.0),
        (1.0, "KiB/s", "B/s", 1024.0),
        (53.248, "MB/s", "Mbit/s", 425.984),  # USB 2.0 bulk ceiling as a network figure
        (1500.0, "ms", "s", 1.5),
        (1.0, "ms", "us", 1000.0),
    ],
)
def test_convert(value, source, target, expected):
    assert convert(value, source, target) == pytest.approx(expected)


def test_round_trip_is_identity():
    for unit in KNOWN_UNITS:
        base = units_of(quantity(unit))[0]
        assert convert(convert(3.5, unit, base), base, unit) == pytest.approx(3.5)


def test_unknown_unit_is_named():
    with pytest.raises(ValueError, match="'MBps'"):
        convert(1.0, "MBps", "MB/s")
    with pytest.raises(ValueError, match="'MBps'"):
        convert(1.0, "MBps", "MBps")


def test_mixing_dimensions_is_refused():
    with pytest.raises(ValueError, match="cannot convert 'MB/s'"):
        convert(1.0, "MB/s", "ms")


def test_convertible():
    assert convertible("MiB/s", "MB/s")
    assert convertible("Mbit/s", "MB/s")
    assert convertible("fps", "fps")
    assert convertible("us", "µs") and convertible("kIOPS", "IOPS")
    assert not convertible("fps", "MB/s")
    assert not convertible("MB/s", "ms")


@pytest.mark.parametrize(
    ("unit", "kind"),
    [
        ("MiB/s", Quantity.DATA_RATE),
        ("Mbit/s", Quantity.DATA_RATE),
        ("µs", Quantity.TIME),
        ("fps", Quantity.FRAME_RATE),
        ("frames", Quantity.FRAMES),
        ("%", Quantity.RATIO),
        ("kIOPS", Quantity.OPERATION_RATE),
        ("count", Quantity.COUNT),
    ],
)
def test_every_quantity_the_suites_need_has_units(unit, kind):
    assert quantity(unit) is kind


def test_efficiency_converts_when_units_differ():
    ceiling = Ceiling(53.248, "MB/s", "USB 2.0 bulk")
    assert efficiency(26.624, ceiling, "MB/s") == pytest.approx(0.5)
    assert efficiency(25.390625, ceiling, "MiB/s") == pytest.approx(0.5)  # 26.624 MB/s
    assert efficiency(212.992, ceiling, "Mbit/s") == pytest.approx(0.5)


def test_efficiency_with_identical_opaque_units():
    assert efficiency(30.0, Ceiling(60.0, "fps", "sensor"), "fps") == pytest.approx(0.5)


def test_efficiency_refuses_incompatible_units():
    with pytest.raises(ValueError):
        efficiency(1.0, Ceiling(53.248, "MB/s", "USB 2.0 bulk"), "ms")
