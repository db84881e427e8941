"""Adaptive sampling: warm up, take min_samples, then sample while a verdict is still open.

One *check* samples one or more metrics from the same runs of a tool (iperf3 UDP gives bandwidth, jitter and
loss at once). A sample source is a zero-argument callable returning a `Measurement` (each metric takes the
quantity its spec `reads`, converted into its unit) or, for a check of one metric only, a `Sample` (kept as
given) or a plain number in the metric's unit (timed around the call). A `MeasurementError` ends sampling with
an ERROR for every metric of the check (they come from the same runs), keeping the samples and the raw output
so far; any other exception is a bug or a lab failure and propagates.

Gated metrics (a band in boards.yaml) steer the sampling: warm-up, min_samples, max_samples and the budget are
the largest any of them asks for, and sampling goes on while any of them is open. Informative metrics (no band)
are recorded from the same runs with verdict INFO.

Stop rules, checked after each counted sample (the first that holds wins):
- ERROR: a sample above the physical ceiling (of any metric of the check), a MeasurementError, a non-finite
  value, a quantity the source did not deliver, or samples around a mean of exactly 0 (no CV exists).
- FIXED_COUNT: spec.fixed_samples, exactly (the user asked for them: neither max_samples nor the budget applies).
- DECIDED: from min_samples on, no gated metric's decision is open any more (PASS or FAIL).
- MAX_SAMPLES: open metrics are then decided finally (MARGINAL / FAIL on the median, or UNSTABLE).
- CV_NOT_FALLING: every open metric meets decide.cv_not_falling: UNSTABLE now instead of at max_samples.
- BUDGET: wall-clock time from the first warm-up sample, decided like MAX_SAMPLES. It is checked before each
  extra sample against the mean duration so far, so a sample that would overrun it is not started; min_samples
  are always taken (a verdict needs them, the budget only bounds the adaptive extension).
A metric already settled when sampling stops for another one keeps stop reason DECIDED, judged on all samples.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hil.verdict.ceilings import efficiency
from hil.verdict.decide import Decision, ceiling_error, cv_not_falling, decide
from hil.verdict.errors import MeasurementError
from hil.verdict.measurement import Measurement
from hil.verdict.result import MetricResult, Sample, SampleStats, StopReason, Verdict, metric_key
from hil.verdict.spec import MetricSpec
from hil.verdict.stats import ZeroMeanError, describe
from hil.verdict.units import convert, convertible

SampleSource = Callable[[], Measurement | Sample | float]


@dataclass(frozen=True)
class Progress:
    """Where sampling stands, passed to on_sample after every sample (warm-up included)."""

    phase: str  # "warmup" or "sample"
    index: int  # 0-based within its phase
    elapsed_s: float  # clock time since the first warm-up sample started
    samples: dict[str, Sample]  # this run's sample of each metric, by its label (_tracks)
    stats: dict[str, SampleStats | None]  # statistics of the counted samples so far (from two on)
    decisions: dict[str, Decision]  # from min_samples on (or at the fixed count), gated metrics only


OnSample = Callable[[Progress], None]


@dataclass(frozen=True)
class _Stop:
    stop_reason: StopReason
    reason: str = ""  # for ERROR: why; for BUDGET / CV_NOT_FALLING: the note added to open metrics
    culprit: str | None = None  # the metric whose value caused an ERROR, if one did
    error_output: str = ""


@dataclass
class _Track:
    """One metric of the check while sampling."""

    spec: MetricSpec
    label: str  # the metric's name, with its parameters where the check has it more than once
    warmup: list[Sample] = field(default_factory=list)
    counted: list[Sample] = field(default_factory=list)
    cv_history: list[float] = field(default_factory=list)
    decision: Decision | None = None

    @property
    def values(self) -> list[float]:
        return [s.value for s in self.counted]


def _split(got: Measurement | Sample | float, specs: Sequence[MetricSpec], started: float, took: float) -> list[Sample]:
    """Each metric's Sample (in its unit) from what a source returned; the raw output is kept with the first only."""
    if isinstance(got, Measurement):
        details = got.details if got.bytes_received is None else {**got.details, "bytes_received": got.bytes_received}
        run_started = got.started if got.started is not None else started
        duration = got.duration_s if got.duration_s is not None else took
        samples = [Sample(_value(got, spec), run_started, duration) for spec in specs]
        samples[0] = replace(samples[0], raw=got.raw, details=dict(details), observed=got.observed)
    elif len(specs) > 1:
        raise TypeError(f"a check of {len(specs)} metrics needs a Measurement, got {type(got).__name__}")
    elif isinstance(got, Sample):
        samples = [got]
    elif isinstance(got, numbers.Real) and not isinstance(got, bool):
        samples = [Sample(value=float(got), started=started, duration_s=took)]
    else:
        raise TypeError(f"a sample source must return a Measurement, a Sample or a number, got {type(got).__name__}")
    for spec, sample in zip(specs, samples, strict=True):
        if not math.isfinite(sample.value):
            raise MeasurementError(f"{spec.metric}: sample value {sample.value!r} is not a finite number", sample.raw)
    return samples


def _value(got: Measurement, spec: MetricSpec) -> float:
    """The quantity `spec` reads from a run, in the metric's unit."""
    quantity = got.values.get(spec.reads)
    if quantity is None:
        given = ", ".join(got.values) or "nothing"
        raise MeasurementError(f"the tool gave no {spec.reads!r} for {spec.metric} (it gave: {given})", got.raw)
    if not convertible(quantity.unit, spec.unit):
        raise MeasurementError(
            f"{spec.metric} is in {spec.unit}, but the tool's {spec.reads} is in {quantity.unit}", got.raw
        )
    return convert(quantity.value, quantity.unit, spec.unit)


def _describe(values: list[float], spec: MetricSpec) -> SampleStats | None:
    """Statistics from two samples on; None before, or when they spread around a mean of 0 (no CV)."""
    if len(values) < 2:
        return None
    try:
        return describe(values, spec.confidence)
    except ZeroMeanError:
        return None


def measure_metric(spec: MetricSpec, sample: SampleSource, **options: Any) -> MetricResult:
    """Sample one metric until its verdict is settled or a limit is hit; `options` as measure_metrics takes them."""
    return measure_metrics([spec], sample, **options)[0]


def measure_metrics(
    specs: Sequence[MetricSpec],
    sample: SampleSource,
    *,
    board: str,
    clock: Callable[[], float] = time.monotonic,
    wall: Callable[[], float] = time.time,
    on_sample: OnSample | None = None,
) -> list[MetricResult]:
    """Sample every metric of `specs` from the same runs of `sample`; one result per spec, in order."""
    tracks = _tracks(specs)
    steering = [t for t in tracks if t.spec.gated] or tracks  # gated metrics decide how long to sample
    warmup_count = max(t.spec.warmup for t in steering)
    fixed = specs[0].fixed_samples
    target = fixed or max(t.spec.min_samples for t in steering)
    durations: list[float] = []  # clock time per counted sample, for the budget forecast
    started, t_start = wall(), clock()
    phase = "warmup"

    def take(kept: str) -> tuple[dict[str, Sample], float]:
        run_started, t0 = wall(), clock()
        got = sample()
        took = clock() - t0
        taken = dict(zip((t.label for t in tracks), _split(got, specs, run_started, took), strict=True))
        for track in tracks:
            getattr(track, kept).append(taken[track.label])
        return taken, took

    def notify(taken: dict[str, Sample], index: int) -> None:
        if on_sample is not None:
            stats = {t.label: _describe(t.values, t.spec) for t in tracks} if phase == "sample" else {}
            decisions = {t.label: t.decision for t in tracks if t.decision is not None}
            on_sample(Progress(phase, index, clock() - t_start, taken, stats, decisions))

    def run() -> _Stop:
        nonlocal phase
        for index in range(warmup_count):
            taken, _ = take("warmup")
            notify(taken, index)
        phase = "sample"
        while True:
            taken, took = take("counted")
            durations.append(took)
            n = len(durations)
            stop = _sample_error(tracks, n)
            if stop is None and n >= target:
                _decide(steering if steering[0].spec.gated else [], final=fixed is not None)
                stop = _stop_at(steering, n, fixed is not None, clock() - t_start + sum(durations) / n)
            notify(taken, n - 1)
            if stop is not None:
                return stop

    try:
        stop = run()
    except MeasurementError as exc:
        where = f"warmup sample {len(tracks[0].warmup) + 1}" if phase == "warmup" else f"sample {len(durations) + 1}"
        stop = _Stop(StopReason.ERROR, f"measurement failed at {where}: {exc}", error_output=exc.raw_output)
    finished = wall()
    return [_result(track, stop, board, started, finished) for track in tracks]


def _tracks(specs: Sequence[MetricSpec]) -> list[_Track]:
    """A track per metric, labelled with its name; with its parameters where the check measures it more than once
    (each USB disk's rate from runs on all of them at once), so that the same metric with other parameters stays
    apart."""
    names = [spec.metric for spec in specs]
    labels = [metric_key(s.metric, s.params) if names.count(s.metric) > 1 else s.metric for s in specs]
    if not specs or len(set(labels)) != len(labels):
        raise ValueError(f"a check needs at least one metric and none that appears twice: {labels}")
    return [_Track(spec, label) for spec, label in zip(specs, labels, strict=True)]


def _decide(tracks: Sequence[_Track], *, final: bool) -> None:
    """Each track's verdict on its counted samples so far, and its CV for the early-stop rule."""
    for track in tracks:
        stats = _describe(track.values, track.spec)
        assert stats is not None  # _sample_error rules out the no-CV case
        track.decision = decide(stats, track.spec, final=final)
        track.cv_history.append(stats.cv)


def _stop_at(steering: Sequence[_Track], n: int, fixed: bool, forecast_s: float) -> _Stop | None:
    """Why sampling stops after `n` counted samples (at least the minimum), or None to sample on; `forecast_s`:
    when the next sample would end, from the start."""
    if fixed:
        return _Stop(StopReason.FIXED_COUNT)
    open_tracks = [t for t in steering if t.decision is not None and t.decision.open]
    if not open_tracks:  # every gated metric settled, or nothing is gated (recorded as they are)
        return _Stop(StopReason.DECIDED)
    if n >= max(t.spec.max_samples for t in steering):
        return _Stop(StopReason.MAX_SAMPLES)
    if all(cv_not_falling(t.cv_history, _describe(t.values, t.spec), t.spec) for t in open_tracks):
        return _Stop(StopReason.CV_NOT_FALLING, "stopped early: the CV has not fallen over the last samples")
    budget_s = max(t.spec.budget_s for t in steering)
    return _Stop(StopReason.BUDGET, f"budget of {budget_s:g} s spent") if forecast_s > budget_s else None


def _sample_error(tracks: list[_Track], n: int) -> _Stop | None:
    """An ERROR stop when the newest sample of any metric is above its ceiling or no CV can exist."""
    for track in tracks:
        spec, newest = track.spec, track.counted[-1]
        what = f"sample {n} of {track.label}" if len(tracks) > 1 else f"sample {n}"
        error = ceiling_error(newest.value, spec.unit, spec.ceiling, what=what)
        if error is not None:
            return _Stop(StopReason.ERROR, error.reason, culprit=track.label, error_output=newest.raw)
        if spec.gated and n >= 2 and _describe(track.values, spec) is None:
            reason = f"the {n} samples of {track.label} spread around a mean of 0 {spec.unit}: no CV exists"
            return _Stop(StopReason.ERROR, reason, culprit=track.label, error_output=newest.raw)
    return None


def _result(track: _Track, stop: _Stop, board: str, started: float, finished: float) -> MetricResult:
    spec = track.spec
    stats = _describe(track.values, spec)
    verdict, reason, side, stop_reason = _verdict(track, stats, stop)
    ratio = None
    if stats is not None and spec.ceiling is not None and convertible(spec.unit, spec.ceiling.unit):
        ratio = efficiency(stats.median, spec.ceiling, spec.unit)
    return MetricResult.for_spec(
        spec,
        board,
        verdict=verdict,
        reason=reason,
        stop_reason=stop_reason,
        samples=track.counted,
        warmup=track.warmup,
        stats=stats,
        side=side,
        efficiency=ratio,
        started=started,
        finished=finished,
        error_output=stop.error_output if verdict is Verdict.ERROR else "",
    )


def _verdict(track: _Track, stats: SampleStats | None, stop: _Stop) -> tuple[Verdict, str, str | None, StopReason]:
    """(verdict, reason, side, stop reason) of one metric once sampling has stopped."""
    spec = track.spec
    if stop.stop_reason is StopReason.ERROR:
        ours = stop.culprit in (None, track.label)
        reason = stop.reason if ours else f"the same runs are not trustworthy: {stop.reason}"
        return Verdict.ERROR, reason, None, StopReason.ERROR
    if stats is None:  # fewer than two samples: only possible when nothing was gated (fixed counts are >= 2)
        return Verdict.ERROR, f"only {len(track.counted)} sample(s): no statistics", None, StopReason.ERROR
    if not spec.gated:
        reason = f"recorded, not gated: median {stats.median:.4g} {spec.unit}, CV {stats.cv:.1%}, n={stats.n}"
        return Verdict.INFO, reason, None, stop.stop_reason
    if stop.stop_reason is StopReason.FIXED_COUNT:
        decision = decide(stats, spec, final=True)
        return decision.verdict, decision.reason, decision.side, StopReason.FIXED_COUNT
    decision = decide(stats, spec, final=False)
    if not decision.open:
        return decision.verdict, decision.reason, decision.side, StopReason.DECIDED
    final = decide(stats, spec, final=True)
    reason = final.reason
    if stop.stop_reason is StopReason.BUDGET:
        reason = f"{stop.reason}: {reason}"
    elif stop.reason:
        reason = f"{reason}; {stop.reason}"
    return final.verdict, reason, final.side, stop.stop_reason
