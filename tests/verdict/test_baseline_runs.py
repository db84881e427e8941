"""Run-level regression: a shift clean runs also show is no regression; one beyond them is; confirmation."""

from __future__ import annotations

import numpy as np
import pytest

from hil.verdict.baseline import MIN_RUN_SPREAD, PRIOR_RUNS, RunSpread, apply_baseline, compare, confirm, run_spread
from hil.verdict.result import MetricResult, Sample, StopReason, Verdict
from hil.verdict.spec import Band, Direction, MetricSpec

RNG = np.random.default_rng(7)


def one_run(center: float, n: int = 8, cv: float = 0.01) -> list[float]:
    return list(center * (1 + cv * RNG.standard_normal(n)))


# Three clean runs whose medians move by ~8%: each run tight within itself, as on the virtual lab.
RUNS = [one_run(100.0), one_run(92.0), one_run(104.0)]


def test_a_shift_as_large_as_clean_runs_show_is_no_regression():
    spread = run_spread({"m": [float(np.median(r)) for r in RUNS]}, "m")
    current = one_run(91.0)  # -9% against the center: within-run significant, but runs vary this much
    c = compare(current, RUNS, direction=Direction.HIGHER, min_effect=0.05, spread=spread, baseline_run="b")
    assert c.p_value < 0.01 and c.change < -0.05
    assert not c.regression and "clean runs move this much" in c.reason
    assert c.baseline_runs == 3 and c.run_spread == pytest.approx(spread.relative_sd) and c.run_p >= 0.05


def test_a_shift_far_beyond_the_run_spread_is_a_regression():
    spread = run_spread({"m": [float(np.median(r)) for r in RUNS]}, "m")
    current = one_run(60.0)
    c = compare(current, RUNS, direction=Direction.HIGHER, min_effect=0.05, spread=spread, baseline_run="b")
    assert c.regression and c.run_p < 0.05 and "clean runs vary by" in c.reason


def test_lower_is_better_regresses_upwards_at_the_run_level():
    runs = [one_run(10.0), one_run(10.4), one_run(9.8)]
    spread = run_spread({"lat": [float(np.median(r)) for r in runs]}, "lat")
    up = compare(one_run(14.0), runs, direction=Direction.LOWER, min_effect=0.05, spread=spread, baseline_run="b")
    down = compare(one_run(7.0), runs, direction=Direction.LOWER, min_effect=0.05, spread=spread, baseline_run="b")
    assert up.regression and not down.regression


def test_with_one_run_the_spread_is_unknown_and_said_so():
    c = compare(one_run(80.0), [one_run(100.0)], direction=Direction.HIGHER, min_effect=0.05, baseline_run="b")
    assert c.regression and c.run_p is None and c.run_spread is None
    assert "run-to-run spread unknown" in c.reason


def test_the_spread_of_a_one_run_metric_comes_from_the_board_pool():
    medians = {"a": [100.0, 90.0, 110.0], "b": [50.0]}
    spread = run_spread(medians, "b")
    assert spread is not None and "pooled" in spread.how and spread.df == min(PRIOR_RUNS, 2)
    assert spread.relative_sd == pytest.approx(0.1, rel=0.01)
    assert run_spread({"b": [50.0]}, "b") is None


def test_identical_runs_do_not_make_every_wobble_significant():
    spread = run_spread({"m": [100.0, 100.0, 100.0]}, "m")
    assert spread.relative_sd == MIN_RUN_SPREAD


def test_a_pair_calibrated_below_one_percent_keeps_its_floor():
    # The virtual clock's figures repeat to 0.02% between boots: boards.yaml's run_spread 0.5% is the floor then.
    spread = run_spread({"m": [38.300, 38.305, 38.310]}, "m", floor=0.005)
    assert spread.relative_sd == 0.005 and "taken as the pair's 0.5%" in spread.how


def test_a_metric_own_spread_is_shrunk_toward_the_pool():
    medians = {"quiet": [100.0, 100.5, 99.5, 100.2], "noisy": [100.0, 80.0, 120.0, 95.0]}
    quiet, noisy = run_spread(medians, "quiet"), run_spread(medians, "noisy")
    assert quiet.relative_sd < noisy.relative_sd
    assert quiet.df == noisy.df == 3 + PRIOR_RUNS


SPEC = MetricSpec(metric="usb.msc.read", unit="MB/s", direction=Direction.HIGHER, band=Band(50.0, None), max_cv=0.05)


def _result(comparison, values=()) -> MetricResult:
    base = MetricResult.for_spec(SPEC, "b", verdict=Verdict.PASS, reason="in band", stop_reason=StopReason.DECIDED)
    base.samples = [Sample(value=v, started=0.0, duration_s=1.0) for v in values]
    return apply_baseline(base, comparison)


def test_confirmation_calls_a_regression_only_when_both_attempts_agree():
    spread = RunSpread(0.03, 6, "test")
    slow = one_run(70.0)
    bad = compare(slow, RUNS, direction=Direction.HIGHER, min_effect=0.05, spread=spread, baseline_run="b")
    good = compare(one_run(99.0), RUNS, direction=Direction.HIGHER, min_effect=0.05, spread=spread, baseline_run="b")
    first = _result(bad, slow)
    assert bad.regression and first.verdict is Verdict.REGRESSION

    def both(second):
        return compare([first.values, second], RUNS, direction=Direction.HIGHER, min_effect=0.05, spread=spread,
                       baseline_run="b")  # fmt: skip

    def alone(second):
        return compare(second, RUNS, direction=Direction.HIGHER, min_effect=0.05, spread=spread, baseline_run="b")

    slow_again = one_run(71.0)
    confirmed = confirm(both(slow_again), first, alone(slow_again))
    assert confirmed.regression and "confirmed after a power cycle" in confirmed.reason
    assert confirmed.first_attempt["change"] == pytest.approx(bad.change)

    # Gone after the power cycle: the two runs together may still look slow, the re-measure alone does not.
    normal = one_run(99.0)
    assert both(normal).regression
    cleared = confirm(both(normal), first, alone(normal))
    assert not cleared.regression and cleared.reason.startswith("suspected regression not confirmed")
    assert good.change > -0.05
    assert _result(cleared).verdict is Verdict.PASS
    round_trip = MetricResult.from_dict(_result(cleared).to_dict())
    assert round_trip.baseline.first_attempt == cleared.first_attempt
