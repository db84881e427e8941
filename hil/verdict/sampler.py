"""Adaptive sampling: warm up, take min_samples, then sample while a verdict is still open.

One *check* samples one or more metrics from the same runs of a tool (iperf3 UDP gives bandwidth,
jitter and loss at once; fio gives bandwidth, IOPS and latency). A sample source is a zero-argument
callable returning
- a `Measurement` (quantities by field name, raw output, details): each metric takes the quantity its
  spec `reads`, converted into the metric's unit; or, for a check of one metric only,
- a `Sample` (value in the metric's unit, started, duration_s, raw): kept as given; or
- a plain number in the metric's unit, wrapped in a Sample timed around the call.
It raises `MeasurementError` (or a subclass such as ParseError) when the measurement cannot be
trusted: that ends sampling with an ERROR verdict for every metric of the check (they come from the
same runs), keeping the samples taken so far and the raw output. Any other exception is a bug or a
lab failure and propagates.

Gated metrics (a band in boards.yaml) steer the sampling: warm-up, min_samples, max_samples and the
budget are the largest any of them asks for, and sampling goes on while any of them is open.
Informative metrics (no band) are recorded from the same runs with verdict INFO.

Stop rules, checked after each counted sample (the first that holds wins):
- ERROR: a sample above the physical ceiling (for any metric of the check), a MeasurementError, a
  non-finite value, a quantity the source did not deliver, or samples that spread around a mean of
  exactly 0 (no CV exists).
- FIXED_COUNT: with spec.fixed_samples, exactly that many samples (neither max_samples nor the
  budget applies: the user asked for them), then one final decision per metric.
- DECIDED: from min_samples on, no gated metric's decision is open any more (PASS or FAIL).
- MAX_SAMPLES: the limit; open metrics are then decided finally (MARGINAL / FAIL on the median, or
  UNSTABLE).
- CV_NOT_FALLING: every open metric's CV is significantly above its max_cv, has not fallen over the
  last few samples, and its interval already lies inside its band (see decide.cv_not_falling):
  UNSTABLE now instead of at max_samples. It never gives up a PASS that more samples could reach.
- BUDGET: the time limit, decided like MAX_SAMPLES. The budget counts wall-clock time from the
  first warm-up sample and is checked before each extra sample against the mean duration of the
  samples so far, so a sample that would overrun it is not started. min_samples are always
  taken: a verdict needs them, the budget only bounds the adaptive extension.
A metric already settled when sampling stops for another one keeps stop reason DECIDED, judged on all
the samples taken.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hil.verdict.ceilings import efficiency
from hil.verdict.decide import Decision, ceiling_error, cv_not_falling, decide
from hil.verdict.errors import MeasurementError
from hil.verdict.measurement import Measurement, Observed
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
    samples: dict[str, Sample]  # this run's sample of each metric, by its label (_labels)
    stats: dict[str, SampleStats | None]  # statistics of the counted samples so far (from two on)
    decisions: dict[str, Decision]  # from min_samples on (or at the fixed count), gated metrics only

    @property
    def metric(self) -> str:
        return next(iter(self.samples))


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


def _checked(source: SampleSource, specs: Sequence[MetricSpec]) -> Callable[[], Measurement | Sample | float]:
    def call() -> Measurement | Sample | float:
        got = source()
        if isinstance(got, Measurement):
            return got
        if len(specs) > 1:
            raise TypeError(f"a check of {len(specs)} metrics needs a Measurement, got {type(got).__name__}")
        if isinstance(got, Sample) or (isinstance(got, numbers.Real) and not isinstance(got, bool)):
            return got
        raise TypeError(f"a sample source must return a Measurement, a Sample or a number, got {type(got).__name__}")

    return call


def _split(got: Measurement | Sample | float, specs: Sequence[MetricSpec], started: float, took: float) -> list[Sample]:
    """This run's Sample of each metric, in its unit; the raw output is kept once, with the first metric."""
    if isinstance(got, Sample):
        samples = [got]
    elif not isinstance(got, Measurement):
        samples = [Sample(value=float(got), started=started, duration_s=took)]
    else:
        run_started = got.started if got.started is not None else started
        duration = got.duration_s if got.duration_s is not None else took
        samples = []
        for index, spec in enumerate(specs):
            quantity = got.quantity(spec.reads)
            if quantity is None:
                raise MeasurementError(
                    f"the tool gave no {spec.reads!r} for {spec.metric} "
                    f"(it gave: {', '.join(got.values) or 'nothing'})",
                    got.raw,
                )
            if not convertible(quantity.unit, spec.unit):
                raise MeasurementError(
                    f"{spec.metric} is in {spec.unit}, but the tool's {spec.reads} is in {quantity.unit}", got.raw
                )
            samples.append(
                Sample(
                    value=convert(quantity.value, quantity.unit, spec.unit),
                    started=run_started,
                    duration_s=duration,
                    raw=got.raw if index == 0 else "",
                    details=_stored_details(got) if index == 0 else {},
                    observed=got.observed if index == 0 else Observed(),
                )
            )
    for spec, sample in zip(specs, samples, strict=True):
        if not math.isfinite(sample.value):
            raise MeasurementError(f"{spec.metric}: sample value {sample.value!r} is not a finite number", sample.raw)
    return samples


def _stored_details(got: Measurement) -> dict[str, Any]:
    """What is kept with a run's first sample: its details, and the bytes its receiver got (if it says)."""
    details = dict(got.details)
    if got.bytes_received is not None:
        details["bytes_received"] = got.bytes_received
    return details


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
    """Sample one metric until its verdict is settled or a limit is hit."""
    return measure_metrics([spec], sample, board=board, clock=clock, wall=wall, on_sample=on_sample)[0]


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
    source = _checked(sample, specs)
    durations: list[float] = []  # clock time per counted sample, for the budget forecast
    started, t_start = wall(), clock()
    phase = "warmup"

    def take(kept: str) -> tuple[dict[str, Sample], float]:
        run_started, t0 = wall(), clock()
        got = source()
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
    labels = _labels(specs)
    if not specs or len(set(labels)) != len(labels):
        raise ValueError(f"a check needs at least one metric and none that appears twice: {labels}")
    return [_Track(spec, label) for spec, label in zip(specs, labels, strict=True)]


def _labels(specs: Sequence[MetricSpec]) -> list[str]:
    """Each metric's name; with its parameters where the check measures it more than once (each USB disk's
    rate from runs on all of them at once), so that the same metric with other parameters stays apart."""
    names = [spec.metric for spec in specs]
    return [metric_key(s.metric, s.params) if names.count(s.metric) > 1 else s.metric for s in specs]


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
        if stop.culprit is None or stop.culprit == track.label:
            return Verdict.ERROR, stop.reason, None, StopReason.ERROR
        return Verdict.ERROR, f"the same runs are not trustworthy: {stop.reason}", None, StopReason.ERROR
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
