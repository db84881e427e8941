"""Adaptive sampling of one metric: warm up, take min_samples, then sample while the verdict is open.

A sample source is a zero-argument callable returning either
- a `Sample` (value, started, duration_s, raw): kept as given, the tool output stays auditable; or
- a plain number: wrapped in a Sample whose `started` is the wall time before the call and whose
  `duration_s` is the clock time the call took, with no raw output.
It raises `MeasurementError` (or a subclass such as ParseError) when the measurement cannot be
trusted: that ends sampling with an ERROR verdict, keeping the samples taken so far and the raw
output. Any other exception is a bug or a lab failure and propagates.

Stop rules, checked after each counted sample (the first that holds wins):
- ERROR: a sample above the physical ceiling, a MeasurementError, a non-finite value, or samples
  that spread around a mean of exactly 0 (no CV exists).
- FIXED_COUNT: with spec.fixed_samples, exactly that many samples (neither max_samples nor the
  budget applies: the user asked for them), then one final decision.
- DECIDED: from min_samples on, the decision is no longer open (PASS or FAIL).
- MAX_SAMPLES: the limit; the decision is then made final (MARGINAL / FAIL on the median, or
  UNSTABLE).
- CV_NOT_FALLING: the CV is significantly above max_cv, has not fallen over the last few samples,
  and the interval already lies inside the band (see decide.cv_not_falling): UNSTABLE now instead
  of at max_samples. It never gives up a PASS that more samples could plausibly reach.
- BUDGET: the time limit, decided like MAX_SAMPLES. The budget counts wall-clock time from the
  first warm-up sample and is checked before each extra sample against the mean duration of the
  samples so far, so a sample that would overrun it is not started. min_samples are always
  taken: a verdict needs them, the budget only bounds the adaptive extension.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable
from dataclasses import dataclass

from hil.verdict.ceilings import efficiency
from hil.verdict.decide import Decision, ceiling_error, cv_not_falling, decide
from hil.verdict.errors import MeasurementError
from hil.verdict.result import MetricResult, Sample, SampleStats, StopReason, Verdict
from hil.verdict.spec import MetricSpec
from hil.verdict.stats import ZeroMeanError, describe
from hil.verdict.units import convertible

SampleSource = Callable[[], Sample | float]


@dataclass(frozen=True)
class Progress:
    """Where sampling stands, passed to on_sample after every sample (warm-up included)."""

    metric: str
    phase: str  # "warmup" or "sample"
    index: int  # 0-based within its phase
    elapsed_s: float  # clock time since the first warm-up sample started
    stats: SampleStats | None  # statistics of the counted samples so far (from two samples on)
    decision: Decision | None  # from min_samples on (or at the fixed count)


OnSample = Callable[[Progress, Sample], None]


@dataclass(frozen=True)
class _Stop:
    verdict: Verdict
    reason: str
    stop_reason: StopReason
    side: str | None = None
    error_output: str = ""


def _take(source: SampleSource, clock: Callable[[], float], wall: Callable[[], float]) -> tuple[Sample, float]:
    """One sample and the clock time it took (the budget's measure, whatever the Sample says)."""
    started, t0 = wall(), clock()
    got = source()
    took = clock() - t0
    if isinstance(got, Sample):
        sample = got
    elif isinstance(got, numbers.Real) and not isinstance(got, bool):
        sample = Sample(value=float(got), started=started, duration_s=took)
    else:
        raise TypeError(f"a sample source must return a Sample or a number, got {type(got).__name__}")
    if not math.isfinite(sample.value):
        raise MeasurementError(f"sample value {sample.value!r} is not a finite number", sample.raw)
    return sample, took


def _describe(values: list[float], spec: MetricSpec) -> SampleStats | None:
    """Statistics from two samples on; None before, or when they spread around a mean of 0 (no CV)."""
    if len(values) < 2:
        return None
    try:
        return describe(values, spec.confidence)
    except ZeroMeanError:
        return None


def measure_metric(
    spec: MetricSpec,
    sample: SampleSource,
    *,
    board: str,
    clock: Callable[[], float] = time.monotonic,
    wall: Callable[[], float] = time.time,
    on_sample: OnSample | None = None,
) -> MetricResult:
    """Sample `spec.metric` with `sample` until its verdict is settled or a limit is hit."""
    warmup: list[Sample] = []
    counted: list[Sample] = []
    durations: list[float] = []  # clock time per counted sample, for the budget forecast
    cv_history: list[float] = []
    started, t_start = wall(), clock()
    phase = "warmup"

    def notify(sample_: Sample, stats: SampleStats | None, decision: Decision | None) -> None:
        if on_sample is not None:
            index = len(warmup) - 1 if phase == "warmup" else len(counted) - 1
            on_sample(Progress(spec.metric, phase, index, clock() - t_start, stats, decision), sample_)

    def run() -> _Stop:
        nonlocal phase
        for _ in range(spec.warmup):
            taken, _took = _take(sample, clock, wall)
            warmup.append(taken)
            notify(taken, None, None)
        phase = "sample"
        target = spec.fixed_samples or spec.min_samples  # samples before the first decision
        while True:
            taken, took = _take(sample, clock, wall)
            counted.append(taken)
            durations.append(took)
            n = len(counted)
            error = ceiling_error(taken.value, spec.unit, spec.ceiling, what=f"sample {n}")
            stats = _describe([s.value for s in counted], spec)
            if error is None and stats is None and n >= 2:
                error = Decision(Verdict.ERROR, f"the {n} samples spread around a mean of 0 {spec.unit}: no CV exists")
            decision = None
            if error is None and stats is not None and n >= target:
                decision = decide(stats, spec, final=spec.fixed_samples is not None)
            notify(taken, stats, decision)
            if error is not None:
                return _Stop(Verdict.ERROR, error.reason, StopReason.ERROR, error_output=taken.raw)
            if decision is None or stats is None:
                continue
            if spec.fixed_samples is not None:
                return _Stop(decision.verdict, decision.reason, StopReason.FIXED_COUNT, decision.side)
            cv_history.append(stats.cv)
            if not decision.open:
                return _Stop(decision.verdict, decision.reason, StopReason.DECIDED, decision.side)
            if n >= spec.max_samples:
                final = decide(stats, spec, final=True)
                return _Stop(final.verdict, final.reason, StopReason.MAX_SAMPLES, final.side)
            if cv_not_falling(cv_history, stats, spec):
                final = decide(stats, spec, final=True)
                reason = f"{final.reason}; stopped early: the CV has not fallen over the last samples"
                return _Stop(final.verdict, reason, StopReason.CV_NOT_FALLING, final.side)
            forecast = clock() - t_start + sum(durations) / len(durations)
            if forecast > spec.budget_s:
                final = decide(stats, spec, final=True)
                reason = f"budget of {spec.budget_s:g} s spent: {final.reason}"
                return _Stop(final.verdict, reason, StopReason.BUDGET, final.side)

    try:
        stop = run()
    except MeasurementError as exc:
        where = f"{phase} sample {len(warmup if phase == 'warmup' else counted) + 1}"
        stop = _Stop(
            Verdict.ERROR,
            f"measurement failed at {where}: {exc}",
            StopReason.ERROR,
            error_output=exc.raw_output,
        )

    stats = _describe([s.value for s in counted], spec)
    ratio = None
    if stats is not None and spec.ceiling is not None and convertible(spec.unit, spec.ceiling.unit):
        ratio = efficiency(stats.median, spec.ceiling, spec.unit)
    return MetricResult.for_spec(
        spec,
        board,
        verdict=stop.verdict,
        reason=stop.reason,
        stop_reason=stop.stop_reason,
        samples=counted,
        warmup=warmup,
        stats=stats,
        side=stop.side,
        efficiency=ratio,
        started=started,
        finished=wall(),
        error_output=stop.error_output,
    )
