"""Board.spec_for: defaults, then the metric, then matching parameter overrides, most specific last."""

from __future__ import annotations

import re
import textwrap

import pytest

from hil.errors import InventoryError
from hil.inventory.loader import load_inventory
from hil.verdict.spec import Band, Ceiling, Direction

PAIR = """\
pairs:
  vpair:
    env: env.yaml
    roles:
      host: {target: vboard}
      device: {target: vboard}
    link: {type: usb, speed: super, udc: dummy_udc.0}
    metrics:
"""


@pytest.fixture
def spec(write_boards, catalogue):
    """spec(metrics_yaml, params, defaults_yaml=None) -> the MetricSpec of a test metric (`m` stands for
    test.rate, `l` for test.latency) from a scratch inventory."""

    def make(metrics: str, params: dict[str, object] | None = None, defaults: str = "", **kwargs):
        text = (f"defaults:\n{textwrap.indent(defaults, '  ')}" if defaults else "") + PAIR
        metrics = re.sub(r"^m:", "test.rate:", textwrap.dedent(metrics), flags=re.MULTILINE)
        metrics = re.sub(r"^l:", "test.latency:", metrics, flags=re.MULTILINE)
        loaded = load_inventory(write_boards(text + textwrap.indent(metrics, "      ")), catalogue)
        name = "test.latency" if "test.latency:" in metrics else "test.rate"
        return loaded.boards["vpair"].spec_for(loaded.inventory, name, params or {}, catalogue=catalogue, **kwargs)

    return make


def test_defaults_apply_where_the_metric_sets_nothing(spec):
    defaults = "max_cv: 7%\nmin_samples: 4\nmax_samples: 12\nbudget_s: 99\nwarmup: 0\nmin_effect: 3\n"
    s = spec("m: {unit: MB/s, min: 8}", defaults=defaults)
    assert (s.max_cv, s.min_samples, s.max_samples, s.budget_s, s.warmup, s.min_effect) == pytest.approx(
        (0.07, 4, 12, 99.0, 0, 0.03)
    )
    assert (s.metric, s.unit, s.direction, s.band) == ("test.rate", "MB/s", Direction.HIGHER, Band(8, None))


def test_without_a_defaults_section_the_built_in_defaults_apply(spec):
    s = spec("m: {unit: MB/s, min: 8}")
    assert (s.max_cv, s.min_samples, s.max_samples, s.budget_s, s.warmup, s.min_effect) == pytest.approx(
        (0.05, 5, 20, 300.0, 1, 0.05)
    )


def test_metric_settings_override_the_defaults_one_by_one(spec):
    s = spec(
        "l: {unit: ms, max: 30, max_cv: 15%, min_samples: 8}",
        defaults="max_cv: 7%\nmin_samples: 4\nbudget_s: 99\n",
    )
    assert (s.max_cv, s.min_samples, s.budget_s) == pytest.approx((0.15, 8, 99.0))
    assert (s.unit, s.direction, s.band) == ("ms", Direction.LOWER, Band(None, 30))


def test_hils_own_max_samples_is_raised_to_the_min_samples_a_metric_asks(spec):
    s = spec("m: {unit: MB/s, min: 8, min_samples: 30}")
    assert (s.min_samples, s.max_samples) == (30, 30)


METRIC_WITH_OVERRIDES = """\
m:
  unit: MB/s
  min: 50
  max: 500
  max_cv: 5%
  params:
    # The most specific selector comes first in the file: it must still win.
    bs=64K,dir=read: {max_cv: 2%}
    bs=64K: {min: 5, max: 10, max_cv: 9%, warmup: 3}
    dir=read: {min_samples: 7, max_cv: 8%}
    qd=32: {min: 90}
"""


@pytest.mark.parametrize(
    ("params", "band", "max_cv", "warmup", "min_samples"),
    [
        ({"bs": "1M"}, Band(50, 500), 0.05, 1, 5),  # no selector matches: the metric's own settings
        ({"bs": "64K"}, Band(5, 10), 0.09, 3, 5),  # both edges given: the override's band
        ({"dir": "read"}, Band(50, 500), 0.08, 1, 7),  # an override without a band keeps the metric's
        ({"bs": "64K", "dir": "read"}, Band(5, 10), 0.02, 3, 7),  # all three; two keys beat one
        ({"bs": "64K", "dir": "write"}, Band(5, 10), 0.09, 3, 5),
        # Parameter values are compared as text; one edge set, the other (max 500) kept: an override that
        # tightens a floor must not drop the ceiling.
        ({"qd": 32}, Band(90, 500), 0.05, 1, 5),
    ],
)
def test_parameter_overrides(spec, params, band, max_cv, warmup, min_samples):
    s = spec(METRIC_WITH_OVERRIDES, params)
    assert (s.band, s.max_cv, s.warmup, s.min_samples) == (band, pytest.approx(max_cv), warmup, min_samples)
    assert s.params == params


def test_an_override_band_replaces_a_nominal_band_and_vice_versa(spec):
    metrics = """\
    m:
      unit: MB/s
      nominal: 250
      tolerance: 10%
      params:
        bs=64K: {min: 150}
        bs=4K: {nominal: 40, tolerance: 4}
    """
    assert spec(metrics, {"bs": "64K"}).band == Band(150, 275)  # a new floor; the ceiling (250 + 10%) stays
    assert spec(metrics, {"bs": "4K"}).band == Band(36, 44)


@pytest.mark.parametrize(
    ("tolerance", "low", "high"),
    [
        ("10%", 225, 275),
        (" 10 % ", 225, 275),
        ("0.5%", 248.75, 251.25),
        (5, 245, 255),
        (2.5, 247.5, 252.5),
        ("5 MB/s", 245, 255),
        ("8 Mbit/s", 249, 251),  # an absolute tolerance in another unit of the quantity
    ],
)
def test_nominal_with_relative_and_absolute_tolerance(spec, tolerance, low, high):
    s = spec(f"m: {{unit: MB/s, nominal: 250, tolerance: {tolerance!r}}}")
    assert (s.band.low, s.band.high) == pytest.approx((low, high))


@pytest.mark.parametrize("value", ["'5%'", "5", "5.0", "'5 %'"])
def test_percentages_with_and_without_the_sign_mean_the_same_fraction(spec, value):
    s = spec(f"m: {{unit: MB/s, min: 8, max_cv: {value}, min_effect: {value}}}")
    assert (s.max_cv, s.min_effect) == pytest.approx((0.05, 0.05))


def test_fixed_samples_pass_through_and_the_ceiling_comes_from_the_catalogue_and_the_link(spec):
    s = spec("m: {unit: MB/s, min: 8}", {"bs": "1M"}, fixed_samples=7)
    assert s.fixed_samples == 7
    assert s.ceiling == Ceiling(500.0, "MB/s", s.ceiling.basis) and "super-speed" in s.ceiling.basis
    assert spec("m: {unit: MB/s, min: 8}").fixed_samples is None
    assert spec("l: {max: 8}").ceiling is None  # a latency crosses no bus ceiling


def test_a_metric_without_a_band_is_rejected(write_boards, catalogue):
    with pytest.raises(InventoryError, match=r"line 9: pairs/vpair/metrics/test.rate: a metric needs a band"):
        load_inventory(write_boards(PAIR + "      test.rate: {unit: MB/s, max_cv: 5%}\n"), catalogue)


def test_an_override_whose_one_edge_crosses_the_kept_one_is_an_error_naming_it(spec):
    with pytest.raises(InventoryError, match=r"params/bs=64K: band min 600.0 is above max 500.0, the edge it keeps"):
        spec("m: {unit: MB/s, min: 50, max: 500, params: {bs=64K: {min: 600}}}")
