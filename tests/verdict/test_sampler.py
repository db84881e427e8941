"""The adaptive sampler with scripted sample sources and a fake clock: every stop reason."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hil.verdict.ceilings import usb_ceiling
from hil.verdict.errors import MeasurementError, ParseError
from hil.verdict.result import Sample, StopReason, Verdict
from hil.verdict.sampler import Progress, measure_metric
from hil.verdict.spec import Band, Direction, MetricSpec

SPEC = MetricSpec("usb.msc.read", "MB/s", Direction.HIGHER, Band(low=40.0))
STEADY = [45.0, 45.2, 44.8, 45.1, 44.9, 45.0]  # CV 0.3%, far above the floor
EDGE = [39.0, 41.0]  # alternating around the floor: the interval keeps straddling it


def run(spec, source, clock, **kwargs):
    return measure_metric(spec, source, board="rk3399", clock=clock, wall=clock, **kwargs)


def test_decided_pass_after_min_samples(scripted, clock):
    t0 = clock.now
    source = scripted([44.0, *STEADY])  # the warm-up runs slower, as cold runs do
    result = run(replace(SPEC, ceiling=usb_ceiling("high")), source, clock)
    assert (result.verdict, result.stop_reason) == (Verdict.PASS, StopReason.DECIDED)
    assert [s.value for s in result.warmup] == [44.0]  # stored, not counted
    assert result.values == STEADY[:5] and result.stats is not None and result.stats.n == 5
    assert result.started == t0 and result.finished == t0 + 6
    assert result.efficiency == pytest.approx(45.0 / 53.248)
    assert (result.board, result.metric, result.band) == ("rk3399", "usb.msc.read", SPEC.band)


def test_decided_fail(scripted, clock):
    result = run(SPEC, scripted([30.0, 30.5, 29.5, 30.2, 29.8, 30.1]), clock)
    assert (result.verdict, result.stop_reason, result.side) == (Verdict.FAIL, StopReason.DECIDED, "low")
    assert len(result.samples) == 5 and "too slow" in result.reason


def test_straddling_runs_to_max_samples_then_decides_on_the_median(scripted, clock):
    result = run(SPEC, scripted([40.0, *EDGE * 20, 41.0]), clock)
    assert result.stop_reason is StopReason.MAX_SAMPLES
    assert len(result.samples) == SPEC.max_samples == 20
    assert result.verdict is Verdict.MARGINAL and "marginal" in result.reason


def test_budget_stops_before_a_sample_that_would_overrun_it(scripted, clock):
    spec = replace(SPEC, budget_s=65.0)
    result = run(spec, scripted([40.0, *EDGE * 20], step_s=10.0), clock)
    # warm-up 10 s + 5 samples 50 s = 60 s; a sixth would end at 70 s > 65 s
    assert result.stop_reason is StopReason.BUDGET
    assert len(result.samples) == 5 and result.reason.startswith("budget of 65 s spent")
    assert result.finished - result.started <= spec.budget_s


def test_min_samples_are_taken_even_when_the_warmup_ate_the_budget(scripted, clock):
    spec = replace(SPEC, budget_s=50.0, warmup=2)
    result = run(spec, scripted([40.0, *EDGE * 20], step_s=30.0), clock)
    assert len(result.warmup) == 2 and len(result.samples) == spec.min_samples
    assert result.stop_reason is StopReason.BUDGET


@pytest.mark.parametrize("count", [3, 7, 30])
def test_fixed_count_takes_exactly_that_many(scripted, clock, count):
    result = run(SPEC.with_fixed_samples(count), scripted([45.0, *STEADY * 10]), clock)
    assert result.stop_reason is StopReason.FIXED_COUNT
    assert len(result.samples) == count and len(result.warmup) == 1
    assert result.verdict is Verdict.PASS


def test_fixed_count_straddling_decides_once_on_the_median(scripted, clock):
    result = run(SPEC.with_fixed_samples(4), scripted([40.0, 39.0, 41.0, 39.5, 41.5]), clock)
    assert (result.stop_reason, result.verdict) == (StopReason.FIXED_COUNT, Verdict.MARGINAL)


def test_measurement_error_keeps_raw_output_and_earlier_samples(scripted, clock):
    boom = ParseError("no 'copied' line in dd output", raw_output="dd: /dev/sda: No such device\n")
    result = run(SPEC, scripted([45.0, 45.1, 44.9, 45.2, boom]), clock)
    assert (result.verdict, result.stop_reason) == (Verdict.ERROR, StopReason.ERROR)
    assert result.error_output == "dd: /dev/sda: No such device\n"
    assert result.values == [45.1, 44.9, 45.2] and len(result.warmup) == 1
    assert "sample 4" in result.reason and "no 'copied' line" in result.reason
    assert result.stats is not None and result.stats.n == 3


def test_measurement_error_during_warmup(scripted, clock):
    result = run(SPEC, scripted([MeasurementError("fio: command not found", "sh: fio: not found")]), clock)
    assert (result.verdict, result.stop_reason) == (Verdict.ERROR, StopReason.ERROR)
    assert result.samples == [] and result.stats is None
    assert "warmup sample 1" in result.reason and result.error_output == "sh: fio: not found"


def test_other_exceptions_propagate(scripted, clock):
    with pytest.raises(RuntimeError, match="board fell over"):
        run(SPEC, scripted([45.0, RuntimeError("board fell over")]), clock)


def test_sample_above_the_ceiling_stops_with_error(scripted, clock):
    spec = replace(SPEC, ceiling=usb_ceiling("high"))
    cached = Sample(value=812.0, started=0.0, duration_s=0.1, raw="1073741824 bytes copied, 1.3 s, 812 MB/s")
    result = run(spec, scripted([45.0, 45.0, 44.8, cached, 45.0]), clock)
    assert (result.verdict, result.stop_reason) == (Verdict.ERROR, StopReason.ERROR)
    assert len(result.samples) == 3  # the offending sample is kept for the report
    assert "sample 3 (812 MB/s) is above the physical ceiling" in result.reason
    assert result.error_output == cached.raw


def test_non_finite_value_is_a_measurement_error(scripted, clock):
    result = run(SPEC, scripted([45.0, 45.0, float("nan")]), clock)
    assert result.verdict is Verdict.ERROR and "not a finite number" in result.reason


def test_wrong_return_type_is_a_bug_and_propagates(scripted, clock):
    with pytest.raises(TypeError, match="Sample or a number"):
        run(SPEC, scripted(["45 MB/s"]), clock)
    with pytest.raises(TypeError):
        run(SPEC, scripted([True]), clock)


def test_samples_returned_as_sample_are_kept_as_given(scripted, clock):
    given = [Sample(45.0 + i / 10, started=100.0 + i, duration_s=0.5, raw=f"run {i}") for i in range(7)]
    result = run(SPEC, scripted(given), clock)
    assert result.warmup == given[:1] and result.samples == given[1:6]


def test_plain_numbers_get_start_time_and_duration_from_the_clocks(scripted, clock):
    t0 = clock.now
    result = run(SPEC, scripted(STEADY, step_s=2.5), clock)
    first = result.samples[0]
    assert first.started == t0 + 2.5 and first.duration_s == 2.5 and first.raw == ""


def test_cv_not_falling_stops_a_noisy_metric_early(scripted, clock):
    # In band (mean 100 vs floor 40) but CV ≈ 20% and not settling.
    noisy = [100.0, 80.0, 120.0, 100.0, 75.0, 125.0, 70.0, 130.0, 65.0, 135.0, 60.0, 140.0]
    spec = replace(SPEC, max_samples=40)
    result = run(spec, scripted([100.0, *noisy, *[55.0, 145.0] * 20]), clock)
    assert (result.verdict, result.stop_reason) == (Verdict.UNSTABLE, StopReason.CV_NOT_FALLING)
    assert spec.min_samples < len(result.samples) < spec.max_samples
    assert "stopped early" in result.reason


def test_a_settling_transient_is_not_stopped_early(scripted, clock):
    # Two slow runs after the warm-up, then steady: the CV falls as samples accumulate.
    result = run(SPEC, scripted([45.0, 30.0, 30.0, *[45.0, 45.1, 44.9] * 10]), clock)
    assert result.stop_reason is not StopReason.CV_NOT_FALLING
    assert len(result.samples) == SPEC.max_samples
    assert result.stats is not None and result.stats.outliers == [0, 1]  # flagged, never dropped


def test_all_zero_loss_is_a_stable_pass(scripted, clock):
    loss = MetricSpec("net.udp.loss", "%", Direction.LOWER, Band(high=1.0))
    result = run(loss, scripted([0.0] * 6), clock)
    assert (result.verdict, result.stop_reason) == (Verdict.PASS, StopReason.DECIDED)


def test_spread_around_a_zero_mean_is_an_error(scripted, clock):
    result = run(SPEC, scripted([1.0, 1.0, -1.0]), clock)
    assert result.verdict is Verdict.ERROR and "mean of 0" in result.reason


def test_on_sample_reports_progress_for_every_sample(scripted, clock):
    seen: list[Progress] = []
    run(SPEC, scripted([44.0, *STEADY]), clock, on_sample=seen.append)
    phases = [(p.phase, p.index) for p in seen]
    assert phases == [("warmup", 0)] + [("sample", i) for i in range(5)]
    metric = SPEC.metric
    assert not seen[0].stats and seen[1].stats[metric] is None  # one counted sample: no spread yet
    assert seen[2].stats[metric] is not None and seen[2].stats[metric].n == 2
    assert [metric in p.decisions for p in seen] == [False] * 5 + [True]
    assert seen[-1].decisions[metric].verdict is Verdict.PASS
    assert seen[-1].elapsed_s == 6.0 and seen[-1].samples[metric].value == STEADY[4]


def test_result_round_trips_through_json_dict(scripted, clock):
    from hil.verdict.result import MetricResult

    result = run(replace(SPEC, ceiling=usb_ceiling("high")), scripted([44.0, *STEADY]), clock)
    assert MetricResult.from_dict(result.to_dict()) == result
