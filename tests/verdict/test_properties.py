"""Invariants of the statistics, the decision rules and the sampler, checked with hypothesis."""

from __future__ import annotations

import itertools
import os
from dataclasses import replace

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as hs

from hil.verdict.decide import decide
from hil.verdict.errors import MeasurementError
from hil.verdict.result import StopReason, Verdict
from hil.verdict.sampler import measure_metric
from hil.verdict.spec import Band, Ceiling, Direction, MetricSpec
from hil.verdict.stats import describe

# Deterministic and quick: the whole file runs in a few seconds. For a deeper search, run with
# HIL_HYPOTHESIS_EXAMPLES=5000.
FAST = settings(
    derandomize=True,
    max_examples=int(os.environ.get("HIL_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

values = hs.floats(min_value=1.0, max_value=1000.0, allow_nan=False, allow_infinity=False)
# Realistic metrics: a level with a few percent of noise, so PASS and MARGINAL get exercised too.
tight = hs.builds(
    lambda level, noise: [level * (1 + e) for e in noise],
    values,
    hs.lists(hs.floats(-0.1, 0.1), min_size=2, max_size=40),
)
samples = hs.one_of(hs.lists(values, min_size=2, max_size=40), tight)


@hs.composite
def bands(draw: hs.DrawFn) -> Band:
    low = draw(hs.one_of(hs.none(), values))
    high = draw(hs.one_of(hs.none(), values))
    if low is None and high is None:
        low = draw(values)
    if low is not None and high is not None and low > high:
        low, high = high, low
    return Band(low, high)


@hs.composite
def specs(draw: hs.DrawFn) -> MetricSpec:
    min_samples = draw(hs.integers(2, 8))
    return MetricSpec(
        "sim.metric",
        "MB/s",
        draw(hs.sampled_from(Direction)),
        draw(bands()),
        max_cv=draw(hs.sampled_from([0.01, 0.05, 0.2, 1.0])),
        min_samples=min_samples,
        max_samples=min_samples + draw(hs.integers(0, 15)),
        warmup=draw(hs.integers(0, 2)),
        ceiling=draw(hs.one_of(hs.none(), hs.builds(lambda v: Ceiling(v, "MB/s", "sim"), values))),
    )


@FAST
@given(samples, hs.sampled_from([0.8, 0.95, 0.99]))
def test_interval_contains_the_mean_and_quartiles_are_ordered(xs, confidence):
    s = describe(xs, confidence)
    assert s.n == len(xs)
    assert s.ci_low <= s.mean <= s.ci_high
    assert s.minimum <= s.q1 <= s.median <= s.q3 <= s.maximum
    assert s.cv >= 0


@FAST
@given(samples)
def test_outliers_are_exactly_the_points_beyond_tukey_fences(xs):
    s = describe(xs)
    iqr = s.q3 - s.q1
    expected = [i for i, x in enumerate(xs) if x < s.q1 - 1.5 * iqr or x > s.q3 + 1.5 * iqr]
    assert s.outliers == expected
    assert s.n == len(xs)  # flagged, never removed


@FAST
@given(samples, specs(), hs.booleans())
def test_decision_invariants(xs, spec, final):
    s = describe(xs, spec.confidence)
    d = decide(s, spec, final=final)
    event(f"{d.verdict} open={d.open}")
    if spec.ceiling is not None and s.maximum > spec.ceiling.value:
        assert d.verdict is Verdict.ERROR and not d.open
        return
    assert d.verdict is not Verdict.ERROR
    if d.verdict.passed:  # PASS or MARGINAL: never with the median outside the band
        assert spec.band.contains(s.median)
    if d.verdict is Verdict.PASS:
        assert s.cv <= spec.max_cv
        assert spec.band.contains(s.ci_low) and spec.band.contains(s.ci_high)
    if final:
        assert not d.open
    if not d.open:  # a settled answer does not change when the limit is reached
        assert decide(s, spec, final=True).verdict is d.verdict
    if d.verdict is Verdict.FAIL and not d.open:
        assert d.side in ("low", "high")


def _cycle(xs: list[float]):
    it = itertools.cycle(xs)
    return lambda: next(it)


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.5
        return self.now


@FAST
@given(samples, specs())
def test_sampler_respects_its_limits_and_keeps_every_sample(xs, spec):
    clock = _Clock()
    result = measure_metric(spec, _cycle(xs), board="sim", clock=clock, wall=clock)
    event(f"{result.stop_reason} {result.verdict}")  # pytest --hypothesis-show-statistics
    counted = len(result.samples)
    assert len(result.warmup) == spec.warmup
    assert counted <= spec.max_samples
    if result.verdict is not Verdict.ERROR:
        assert counted >= spec.min_samples
        assert result.stats is not None and result.stats.n == counted  # outliers stay in
        if result.verdict.passed:
            assert spec.band.contains(result.stats.median)
        if result.verdict is Verdict.PASS:
            assert result.stats.cv <= spec.max_cv
    else:
        assert result.stop_reason is StopReason.ERROR and spec.ceiling is not None
        assert max(result.values) > spec.ceiling.value
    # the counted samples are the source's values, in order, after the warm-up
    stream = list(itertools.islice(itertools.cycle(xs), spec.warmup + counted))
    assert result.values == stream[spec.warmup :]
    if result.stop_reason is StopReason.DECIDED:
        assert result.verdict in (Verdict.PASS, Verdict.FAIL)
    if result.stop_reason is StopReason.MAX_SAMPLES:
        assert counted == spec.max_samples
    if result.stop_reason is StopReason.CV_NOT_FALLING:
        # stopped early only when the band alone would pass and the CV is the problem
        assert result.verdict is Verdict.UNSTABLE and counted < spec.max_samples
        assert result.stats is not None and result.stats.cv > spec.max_cv
        assert spec.band.contains(result.stats.ci_low) and spec.band.contains(result.stats.ci_high)


@FAST
@given(samples, specs(), hs.integers(0, 30))
def test_sampler_error_keeps_what_was_measured(xs, spec, fail_at):
    spec = replace(spec, ceiling=None)  # only the injected failure may end it with ERROR
    calls = itertools.count()
    source_values = _cycle(xs)

    def source() -> float:
        if next(calls) == fail_at:
            raise MeasurementError("tool died", raw_output=f"raw {fail_at}")
        return source_values()

    clock = _Clock()
    result = measure_metric(spec, source, board="sim", clock=clock, wall=clock)
    taken = len(result.warmup) + len(result.samples)
    if result.verdict is Verdict.ERROR:
        assert taken == fail_at and result.error_output == f"raw {fail_at}"
        assert result.stop_reason is StopReason.ERROR
    else:
        assert taken <= fail_at  # finished before the failing call
        assert spec.min_samples <= len(result.samples) <= spec.max_samples
