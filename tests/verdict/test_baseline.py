"""Baseline comparison: a regression needs significance AND size; apply_baseline only demotes passes."""

from __future__ import annotations

import pytest
from scipy import stats as st

from hil.verdict.baseline import apply_baseline, compare, smallest_p
from hil.verdict.result import MetricResult, StopReason, Verdict
from hil.verdict.spec import Band, Direction, MetricSpec

BASE = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8]
SLOWER_10 = [90.0, 91.0, 89.0, 90.5, 89.5, 90.2, 89.8]  # -10%, cleanly separated
SLOWER_2 = [98.0, 98.1, 97.9, 98.05, 97.95, 98.02, 97.98]  # -2%, cleanly separated


def cmp(current, baseline=BASE, direction=Direction.HIGHER, min_effect=0.05):
    return compare(current, baseline, direction=direction, min_effect=min_effect, baseline_run="v1.0")


def test_significant_and_large_is_a_regression():
    c = cmp(SLOWER_10)
    assert c.regression
    assert c.p_value == pytest.approx(st.mannwhitneyu(SLOWER_10, BASE, alternative="less").pvalue)
    assert c.p_value < 0.01 and c.change == pytest.approx(-0.10)  # medians 90 vs 100
    assert (c.baseline_run, c.baseline_median, c.baseline_n) == ("v1.0", 100.0, 7)
    assert (c.alpha, c.min_effect) == (0.01, 0.05)
    assert c.reason.startswith("regression against v1.0") and "-10.0%" in c.reason


def test_significant_but_small_is_not():
    c = cmp(SLOWER_2)
    assert c.p_value < 0.01 and not c.regression
    assert "not 5% worse" in c.reason


def test_large_but_not_significant_is_not():
    c = cmp([90.0, 91.0, 89.0], [100.0, 101.0, 99.0])
    assert c.change <= -0.05 and c.p_value >= 0.01 and not c.regression
    # 3 vs 3 samples can never reach p < 0.01: say so, it is a configuration problem
    assert "cannot reach p < 0.01" in c.reason and "0.05" in c.reason


def test_improvement_is_not_a_regression():
    c = cmp([110.0, 111.0, 109.0, 110.5, 109.5, 110.2, 109.8])
    assert c.change > 0 and c.p_value > 0.5 and not c.regression


def test_lower_is_better_looks_the_other_way():
    base = [10.0, 10.1, 9.9, 10.05, 9.95, 10.02]
    slower = [11.0, 11.1, 10.9, 11.05, 10.95, 11.02]  # +10% latency
    worse = compare(slower, base, direction=Direction.LOWER, min_effect=0.05, baseline_run="v1")
    assert worse.regression
    assert worse.p_value == pytest.approx(st.mannwhitneyu(slower, base, alternative="greater").pvalue)
    better = compare(base, slower, direction=Direction.LOWER, min_effect=0.05, baseline_run="v1")
    assert not better.regression


def test_all_ties_give_no_evidence():
    c = cmp([100.0] * 5, [100.0] * 5)
    assert c.p_value == 1.0 and not c.regression and c.change == 0


def test_smallest_p():
    assert smallest_p(5, 5) == pytest.approx(1 / 252)  # < 0.01: 5 vs 5 can detect
    assert smallest_p(4, 4) == pytest.approx(1 / 70)  # > 0.01: 4 vs 4 never can


@pytest.mark.parametrize(
    ("samples", "baseline"), [([1.0], [1.0, 2.0]), ([1.0, 2.0], [1.0]), ([1.0, float("nan")], [1.0, 2.0])]
)
def test_rejects_unusable_input(samples, baseline):
    with pytest.raises(ValueError):
        cmp(samples, baseline)


def test_a_count_whose_baseline_is_zero_compares_in_units_not_percent():
    """Corrupt frames (lower is better): 0 in every baseline sample, then 3 per run. Seen 2026-11-24: every
    UVC run with --baseline raised ValueError out of perf.check and FAILed with all its metrics PASS."""
    worse = compare([3.0] * 6, [0.0] * 6, direction=Direction.LOWER, min_effect=0.05, baseline_run="r1")
    assert worse.regression and worse.change == 3.0  # +300% of one unit
    assert "of one unit: the baseline is 0" in worse.reason
    same = compare([0.0] * 6, [0.0] * 6, direction=Direction.LOWER, min_effect=0.05, baseline_run="r1")
    assert not same.regression and same.change == 0 and same.p_value == 1.0


SPEC = MetricSpec("usb.msc.read", "MB/s", Direction.HIGHER, Band(low=80.0))


def result_with(verdict: Verdict) -> MetricResult:
    return MetricResult.for_spec(SPEC, "rk3399", verdict=verdict, reason="band says so", stop_reason=StopReason.DECIDED)


@pytest.mark.parametrize("verdict", [Verdict.PASS, Verdict.MARGINAL])
def test_apply_baseline_turns_a_pass_into_regression(verdict):
    comparison = cmp(SLOWER_10)
    out = apply_baseline(result_with(verdict), comparison)
    assert out.verdict is Verdict.REGRESSION and out.baseline == comparison
    assert out.reason.startswith("regression against v1.0") and f"band verdict {verdict}" in out.reason


@pytest.mark.parametrize("verdict", [Verdict.UNSTABLE, Verdict.FAIL, Verdict.ERROR, Verdict.INFO])
def test_a_result_that_also_regressed_keeps_its_verdict_and_says_both(verdict):
    comparison = cmp(SLOWER_10)
    out = apply_baseline(result_with(verdict), comparison)
    assert out.verdict is verdict and out.baseline == comparison
    assert out.reason.startswith("band says so; and a regression against v1.0") and "-10.0%" in out.reason


@pytest.mark.parametrize("verdict", [Verdict.UNSTABLE, Verdict.FAIL, Verdict.ERROR])
def test_a_failing_result_without_regression_keeps_its_reason(verdict):
    out = apply_baseline(result_with(verdict), cmp(SLOWER_2))
    assert (out.verdict, out.reason) == (verdict, "band says so") and out.baseline is not None


def test_apply_baseline_without_regression_keeps_the_pass():
    original = result_with(Verdict.PASS)
    out = apply_baseline(original, cmp(SLOWER_2))
    assert out.verdict is Verdict.PASS and out.baseline is not None
    assert original.baseline is None  # a copy: the input is not modified


def test_comparison_round_trips_and_old_records_still_load():
    out = apply_baseline(result_with(Verdict.PASS), cmp(SLOWER_10))
    data = out.to_dict()
    assert MetricResult.from_dict(data) == out
    for added in ("alpha", "min_effect", "reason"):  # results.json written before these fields existed
        del data["baseline"][added]
    assert MetricResult.from_dict(data).baseline.alpha == 0.01
