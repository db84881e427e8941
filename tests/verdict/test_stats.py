"""describe() against numpy/scipy/statistics on fixed inputs."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import stats as st

from hil.verdict.stats import (
    ZeroMeanError,
    chi2_quantile,
    cv_lower_bound,
    describe,
    mann_whitney_p,
    quartiles,
    t_above,
    t_below,
)

VALUES = [10.0, 12.0, 11.0, 13.0, 9.0, 30.0]  # one slow-start-like outlier at index 5


def test_describe_matches_reference_implementations():
    s = describe(VALUES)
    assert s.n == 6
    assert s.mean == pytest.approx(statistics.mean(VALUES))
    assert s.median == pytest.approx(statistics.median(VALUES))
    assert s.std == pytest.approx(statistics.stdev(VALUES))  # ddof=1
    assert s.cv == pytest.approx(statistics.stdev(VALUES) / statistics.mean(VALUES))
    low, high = st.t.interval(0.95, 5, loc=np.mean(VALUES), scale=st.sem(VALUES))
    assert (s.ci_low, s.ci_high) == pytest.approx((low, high))
    assert s.confidence == 0.95
    assert (s.minimum, s.maximum) == (9.0, 30.0)
    assert (s.q1, s.q3) == pytest.approx(tuple(np.percentile(VALUES, [25, 75])))
    assert (s.q1, s.q3) == pytest.approx((10.25, 12.75))  # linear interpolation, numpy's default


def test_tukey_outliers_are_flagged_by_index_and_kept():
    s = describe(VALUES)
    # IQR 2.5: fences 10.25 - 3.75 = 6.5 and 12.75 + 3.75 = 16.5, so only 30 is out.
    assert s.outliers == [5]
    assert s.n == len(VALUES) and s.maximum == 30.0  # flagged, never dropped


def test_no_outliers_in_a_tight_sample():
    assert describe([100.0, 101.0, 99.0, 100.5, 99.5]).outliers == []


def test_cv_is_a_fraction():
    assert describe([98.0, 100.0, 102.0]).cv == pytest.approx(0.02)


def test_higher_confidence_widens_the_interval():
    narrow, wide = describe(VALUES, 0.90), describe(VALUES, 0.99)
    assert wide.ci_low < narrow.ci_low < narrow.ci_high < wide.ci_high
    assert wide.confidence == 0.99


def test_identical_samples_have_zero_cv_and_a_point_interval():
    s = describe([50.0, 50.0, 50.0])
    assert s.std == 0 and s.cv == 0
    assert s.ci_low == s.ci_high == 50.0  # scipy would say NaN here


def test_all_zero_samples_are_stable_not_an_error():
    # e.g. UDP loss of 0% on every run: CV 0 rather than 0/0
    s = describe([0.0, 0.0, 0.0, 0.0])
    assert s.mean == 0 and s.cv == 0


def test_spread_around_zero_mean_raises_a_clear_value_error():
    with pytest.raises(ZeroMeanError, match="mean of 0"):
        describe([1.0, -1.0, 2.0, -2.0])
    assert issubclass(ZeroMeanError, ValueError)


def test_negative_mean_gives_a_positive_cv():
    assert describe([-98.0, -100.0, -102.0]).cv == pytest.approx(0.02)


@pytest.mark.parametrize("values", [[], [1.0]])
def test_needs_two_samples(values):
    with pytest.raises(ValueError, match="at least 2"):
        describe(values)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_rejects_non_finite_samples(bad):
    with pytest.raises(ValueError, match="finite"):
        describe([1.0, bad, 2.0])


@pytest.mark.parametrize("confidence", [0.0, 1.0, 1.5])
def test_rejects_confidence_outside_unit_interval(confidence):
    with pytest.raises(ValueError, match="confidence"):
        describe([1.0, 2.0], confidence)


def test_cv_lower_bound_is_the_chi_square_bound():
    s = describe([100.0, 90.0, 110.0, 95.0, 105.0, 100.0, 92.0, 108.0])
    dof = s.n - 1
    expected = s.cv * math.sqrt(dof / st.chi2.ppf(0.99, dof))
    assert cv_lower_bound(s, 0.99) == pytest.approx(expected)
    assert cv_lower_bound(s, 0.99) < cv_lower_bound(s, 0.90) < s.cv
    assert cv_lower_bound(describe([5.0, 5.0]), 0.99) == 0.0


@pytest.mark.parametrize("dof", [1, 2, 4, 9, 29, 200])
def test_the_distributions_from_scipy_special_are_scipy_stats_own(dof):
    # hil takes them from scipy.special (scipy.stats costs a second to import); the values must not move.
    for probability in (0.55, 0.9, 0.95, 0.975, 0.995, 0.9995):
        assert t_below(probability, dof) == pytest.approx(st.t.ppf(probability, dof), rel=1e-10)
        assert chi2_quantile(probability, dof) == pytest.approx(st.chi2.ppf(probability, dof), rel=1e-9)
        assert chi2_quantile(1 - probability, dof) == pytest.approx(st.chi2.ppf(1 - probability, dof), rel=1e-9)
    for x in (-4.0, 0.0, 0.3, 2.5, 12.0):
        assert t_above(x, dof) == pytest.approx(st.t.sf(x, dof), rel=1e-10, abs=1e-300)


@settings(max_examples=400, deadline=None)
@given(x=hs.lists(hs.one_of(hs.integers(0, 6).map(float), hs.floats(-1e6, 1e6)), min_size=1, max_size=40))
def test_quartiles_are_numpy_percentile_to_the_last_bit(x):
    """Stored quartiles did not move when numpy.percentile (its per-call cost) was replaced."""
    assert quartiles(sorted(x)) == tuple(float(q) for q in np.percentile(x, [25, 50, 75]))


def _samples(max_size: int) -> hs.SearchStrategy[list[float]]:
    # a few distinct levels make ties common, as in repeated integer-ish figures (counts, rounded rates)
    level = hs.one_of(hs.integers(0, 6).map(float), hs.floats(30.0, 40.0, allow_nan=False))
    return hs.lists(level, min_size=2, max_size=max_size)


@settings(max_examples=400, deadline=None)
@given(x=_samples(14), y=_samples(70), alternative=hs.sampled_from(["less", "greater"]))
def test_mann_whitney_is_scipy_stats_own(x, y, alternative):
    """hil's p-value (no scipy.stats import: half a second) is mannwhitneyu's, exact and asymptotic, ties or none."""
    ours = mann_whitney_p(np.array(x), np.array(y), alternative)
    theirs = float(st.mannwhitneyu(x, y, alternative=alternative).pvalue)
    assert ours == pytest.approx(1.0 if math.isnan(theirs) else theirs, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize(
    ("x", "y"),
    [
        ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]),  # exact, the extreme: 1 / C(7, 3)
        ([5.0, 5.0, 5.0], [5.0, 5.0]),  # every value tied: no evidence of a shift
        (list(np.linspace(0, 1, 30)), list(np.linspace(0.5, 1.5, 40))),  # asymptotic, no ties
    ],
)
def test_mann_whitney_on_the_edges(x, y):
    for alternative in ("less", "greater"):
        theirs = float(st.mannwhitneyu(x, y, alternative=alternative).pvalue)
        ours = mann_whitney_p(np.array(x), np.array(y), alternative)
        assert ours == pytest.approx(1.0 if math.isnan(theirs) else theirs, rel=1e-9)
    assert mann_whitney_p(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0, 7.0]), "less") == 1 / 35
