"""`perf.check`: what a test case calls to measure one or more metrics from the same runs of a tool.

    perf.check("usb.msc.read", bs="1M", sample=lambda: dd.read(pair.host, disk, ...))
    perf.check(["usb.net.udp.bandwidth", "usb.net.udp.jitter", "usb.net.udp.loss"], function="ecm",
               sample=lambda: iperf3.udp(...))
    perf.check([("usb.disk.together.read", {"disk": "a"}), ("usb.disk.together.read", {"disk": "b"}),
                "usb.disk.together.total.read"], bs="512K", sample=lambda: dd_together.read(...))

For each metric: its spec (catalogue + boards.yaml for this pair and these parameters), sampling until
the verdicts are settled, facts of the lab, a baseline comparison when asked, the result attached to
the test (stored, rendered, in JUnit); then the test passes, warns, fails or errors on the worst of them.
Metrics the pair gives no band for are recorded as informative (INFO); a check of which the pair knows
none of the metrics is skipped. A metric named with parameters of its own, `(name, {"disk": "a"})`, is
that metric for those parameters (on top of the check's): it reads its quantity under `metric_key(reads, params)`
in the tool's Measurement, so one run can give the same metric for several devices.
"""

from __future__ import annotations

import logging
import numbers
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from hil import diagnose
from hil.catalogue import cpu
from hil.db.baselines import Baselines
from hil.errors import HilError
from hil.inventory.loader import LoadedInventory
from hil.lab.board import bound, tuning
from hil.lab.pair import BoardPair
from hil.lab.pair_facts import facts_now
from hil.measure import board_state, cpuload, netdev, operating_point, pcload
from hil.report import collect, live
from hil.report.outcome import raise_for_results
from hil.verdict.baseline import compare, confirm, run_spread
from hil.verdict.errors import DataCorruption, MeasurementError
from hil.verdict.final import Found, Integrity, OperatingPoint, PcLoad, final_verdict
from hil.verdict.measurement import Measurement, Quantity
from hil.verdict.result import CLOCK_PARAM, BaselineComparison, MetricResult, Sample, Verdict, metric_key
from hil.verdict.sampler import Progress, measure_metrics
from hil.verdict.spec import Band, MetricSpec

log = logging.getLogger("hil")


@dataclass(frozen=True)
class PerfOptions:
    """What the plugin resolves once per test for `perf.check` (as pytest-benchmark's plugin builds its fixture)."""

    samples: int | None = None  # --samples: a fixed count instead of adaptive sampling
    baselines: Baselines | None = None  # --baseline's; None: no comparison
    first_attempts: Mapping[str, MetricResult] = field(default_factory=dict)  # a confirmation's first, by key
    suspect: Callable[[MetricResult], None] | None = None  # re-measure a suspected regression; None: call it now


class Perf:
    def __init__(self, node: pytest.Item, pair: BoardPair, inventory: LoadedInventory, options: PerfOptions) -> None:
        self.node = node
        self.pair = pair
        self.inventory = inventory
        self.options = options

    def check(
        self,
        metrics: str | Sequence[str | tuple[str, dict[str, Any]]],
        *,
        sample: Callable[[], Any],
        facts: dict[str, Any] | None = None,
        cpu_load_on: str | None = "device",
        verify: Callable[[], str] | None = None,
        diagnosis: diagnose.Diagnosis | None = None,
        **params: Any,
    ) -> MetricResult | list[MetricResult]:
        """Sample until the verdicts are settled; one result for one metric name, a list for a list.

        cpu_load_on: the role whose per-CPU load is sampled around every run of the tool (seed 004), or
        None; a pair without that role skips it.
        verify: checks, once after the timed samples, that the data the transfer moves arrives intact
        (hil.measure.integrity) and returns what it checked; corrupted data is a FAIL of every metric of the
        check whatever its rate, a check that could not be made an ERROR.
        diagnosis: where a FAIL or REGRESSION lost its rate, run after the verdict (hil.diagnose).
        """
        named = [(m, {}) if isinstance(m, str) else m for m in ([metrics] if isinstance(metrics, str) else metrics)]
        virtual = self.pair.board.config.clock == "virtual"
        if virtual:  # another figure than the real clock's: its key says so, so no comparison mixes the two
            params = {**params, CLOCK_PARAM: self.pair.board.config.clock_name}
        for name, _ in named:
            self.inventory.catalogue.metric(name)  # a misspelt name in a test is a bug: UnknownName says which
        board = self.pair.board
        if not any(name in board.config.metrics for name, _ in named):
            pytest.skip(f"{board.name}: boards.yaml sets no expectation for {', '.join(dict(named))}")
        # A rate's CPU cost, gated where the pair gives it a band (hil.catalogue.cpu), from the same runs.
        named += [(cpu.companion(n), own) for n, own in named if cpu.companion(n) in board.config.metrics]
        self._one_procedure_per_key([metric_key(name, {**params, **own}) for name, own in named])
        specs = [self._spec(name, {**params, **own}, own) for name, own in named]
        if len(specs) > 1:
            sample = _as_measurement(sample, specs[0])
        sample = pcload.with_pc_load(sample)  # the tool's run only: the lab PC's CPU use outside hil
        if cpu_load_on is not None and cpu_load_on in self.pair.roles:
            # the board doing the work: its per-CPU load, and its operating point held or not (rule 1)
            sample = board_state.with_board_state(self.pair.role(cpu_load_on), sample)
        # The board's tuning profile for the sampling only, restored after it (also after a failure).
        with tuning.tuned(board.config.tuning, self.pair.roles) as tuned:
            # Facts first: after sampling, the board may be the thing that failed.
            known = facts_now(self.pair)
            for target, line in tuned.items():
                known.board(target).tuning = line
            known.note(facts or {})
            results = measure_metrics(
                specs,
                _bounded_by_the_warmup(_lab_errors_as_measurement_errors(sample)),
                board=board.name,
                on_sample=self._progress,
            )
            integrity = _verify(verify, results)
        # the check's runs: its companions' too; recorded on the virtual clock, where the PC's load is no reason
        pc_load, point = self._lab_state(results[0], None if virtual else specs[0].pc_load_max)
        warned: set[str] = set()  # the metrics of one check share their runs: one warning for all
        for index, (spec, result) in enumerate(zip(specs, results, strict=True)):
            result.facts = known.copy()
            self._note_cpu_load(result)
            self._note_interface_errors(result, warned)
            result.facts.band_source = spec.band_source
            if spec.floor is not None:
                result.facts.standard_floor = spec.floor.describe()
            comparison = self._comparison(result, spec)
            results[index] = final_verdict(
                result, pc_load=pc_load, operating_point=point, comparison=comparison, integrity=integrity
            )
            if comparison and comparison.regression and not comparison.first_attempt and self.options.suspect:
                self.options.suspect(results[index])
            collect.attach(self.node, results[index])
        diagnose.after_verdict(self.node, results, diagnosis)
        raise_for_results(results)
        return results[0] if isinstance(metrics, str) else results

    def _spec(self, metric: str, params: dict[str, Any], own: dict[str, Any]) -> MetricSpec:
        spec = self.pair.board.spec_for(self.inventory.inventory, metric, params, fixed_samples=self.options.samples)
        return replace(spec, reads=metric_key(spec.reads, own)) if own else spec

    def band(self, metric: str, **params: Any) -> Band | None:
        """The band boards.yaml gives `metric` on this pair for these parameters (None: it gates nothing)."""
        return self.pair.board.spec_for(self.inventory.inventory, metric, params).band

    def _note_cpu_load(self, result: MetricResult) -> None:
        """The median per-CPU load over the counted samples, and a core at its limit (the bottleneck)."""
        load = cpuload.summary(result.samples)
        if load is None:
            return
        line, saturated = load
        result.facts.cpu_load = line
        if saturated:
            result.facts.cpu_saturated = ", ".join(saturated)
            log.warning("%s %s: CPU at its limit during the transfer: %s", self.pair.name, result.metric, saturated[0])

    def _lab_state(self, result: MetricResult, bound: float | None) -> tuple[PcLoad | None, OperatingPoint | None]:
        """The lab PC's CPU use outside hil and the measuring board's operating point over the counted samples
        (hil.verdict.final, rule 1), each warned of when it is off."""
        load, held = pcload.summary(result.samples, bound), operating_point.summary(result.samples)
        pc_load = None if load is None else PcLoad(*load, bound=bound)
        point = None if held is None else OperatingPoint(held[0], tuple(held[1]))
        for condition in (pc_load, point):
            if condition is not None and condition.off:
                log.warning("%s %s: %s", self.pair.name, result.metric, condition.note)
        return pc_load, point

    def _note_interface_errors(self, result: MetricResult, warned: set[str]) -> None:
        """Error and drop counters of the measured interface over every run (warm-up included), and a
        warning when its error counters grew: a link that damages frames, whatever the rate says (seed 000
        §2.2: look at the error rate first, then the USB signal). Flagged, not an ERROR: the rate was
        measured correctly, and the band still decides."""
        counted = netdev.summary([*result.warmup, *result.samples])
        if counted is None:
            return
        line, grew = counted
        result.facts.interface_errors = line
        if grew:
            result.facts.interface_errors_grew = ", ".join(grew)
            if line not in warned:
                warned.add(line)
                message = f"{self.pair.name}: interface error counters grew while measuring {result.metric}: {line}"
                log.warning(message)
                warnings.warn(netdev.InterfaceErrorsWarning(message), stacklevel=3)

    def _comparison(self, result: MetricResult, spec: MetricSpec) -> BaselineComparison | None:
        """The comparison with the stored baseline, confirming a first attempt's suspicion (hil.confirmation)."""
        store = self.options.baselines
        if store is None:
            return None
        baseline = store.load(result.board)
        key = result.key
        runs = baseline.runs_for(key) if baseline else None
        if not runs or len(result.samples) < 2:
            result.facts.baseline = f"none stored for {key}"
            return None
        spread = run_spread(baseline.run_medians(result.unit), key, floor=spec.min_run_spread)

        def against_baseline(samples: list[float] | list[list[float]]) -> BaselineComparison:
            return compare(
                samples,
                runs,
                direction=result.direction,
                min_effect=spec.min_effect,
                spread=spread,
                baseline_run=baseline.run_for(key, result.facts.identity()),
            )

        comparison = against_baseline(result.values)
        first = self.options.first_attempts.get(key)
        if first is not None and len(first.values) >= 2:
            return confirm(against_baseline([first.values, result.values]), first, comparison)
        return comparison

    def _one_procedure_per_key(self, keys: list[str]) -> None:
        """A key names one procedure: a second test of the run measuring under a key another one measured (a lab's
        own case beside the stock one, with another transfer size) would store two procedures as one figure for
        trend, compare and baselines. The same test again (a confirmation's second attempt) is that procedure."""
        for key in keys:
            first = self.pair.measured.setdefault(key, self.node.nodeid)
            if first != self.node.nodeid:
                raise HilError(
                    f"{self.pair.name}: {key} was measured in this run by {first}: a case that measures a metric its "
                    "own way gives it a parameter of its own (perf.check(..., total='8M')), so its figures get a key "
                    "of their own"
                )

    def _progress(self, progress: Progress) -> None:
        parts = []
        for name, sample in progress.samples.items():
            stats = progress.stats.get(name)
            spread = f" (median {stats.median:.4g}, CV {stats.cv * 100:.1f}%)" if stats else ""
            parts.append(f"{name} {sample.value:.4g}{spread}")
        line = (
            f"{self.pair.name} {progress.phase} {progress.index + 1}: {'; '.join(parts)} ({progress.elapsed_s:.0f} s)"
        )
        log.info(line)
        live.emit(self.node, line)  # with -v: the terminal now, or via the report under xdist


def _verify(verify: Callable[[], str] | None, results: list[MetricResult]) -> Integrity | None:
    """Run the check's integrity verification, unless there is none or sampling already ended in ERROR on
    every metric (the board that failed is not asked for more)."""
    if verify is None or all(result.verdict is Verdict.ERROR for result in results):
        return None
    try:
        return Integrity(verify())
    except DataCorruption as exc:
        return Integrity(str(exc), Found.CORRUPTED, exc.raw_output)
    except MeasurementError as exc:
        return Integrity(str(exc), Found.NOT_VERIFIED, exc.raw_output)
    except HilError as exc:  # a board that hung or a command that failed while verifying
        return Integrity(f"{type(exc).__name__}: {exc}", Found.NOT_VERIFIED, getattr(exc, "output", ""))


BOUND_FACTOR = 5  # a sample may take this many times the warm-up's duration before the board counts as hung
BOUND_FLOOR_S = 20.0  # but never less: a short sample on a busy lab PC still gets time


def _bounded_by_the_warmup(sample: Callable[[], Any]) -> Callable[[], Any]:
    """Every sample after the first (the warm-up) runs under a bound derived from the warm-up's duration
    (hil.lab.board.bound): a board that hangs mid-sample is noticed in seconds, not after a command's own limit."""
    warmup_s: list[float] = []

    def bounded_sample() -> Any:
        if not warmup_s:
            started = time.monotonic()
            result = sample()
            warmup_s.append(time.monotonic() - started)
            return result
        seconds = max(BOUND_FLOOR_S, BOUND_FACTOR * warmup_s[0])
        with bound.bounded(seconds, f"{BOUND_FACTOR}x the warm-up's {warmup_s[0]:.1f} s, at least {BOUND_FLOOR_S:g} s"):
            return sample()

    return bounded_sample


def _as_measurement(sample: Callable[[], Any], first: MetricSpec) -> Callable[[], Any]:
    """A tool that gives one figure (a Sample, a number) as a Measurement of the check's first metric, so
    that metrics from the same runs (the CPU cost) can be read beside it."""

    def measured() -> Any:
        got = sample()
        if isinstance(got, Sample):
            return Measurement(
                {first.reads: Quantity(got.value, first.unit)},
                raw=got.raw,
                started=got.started,
                duration_s=got.duration_s,
                details=got.details,
                observed=got.observed,
            )
        if isinstance(got, numbers.Real) and not isinstance(got, bool):
            return Measurement({first.reads: Quantity(float(got), first.unit)})
        return got

    return measured


def _lab_errors_as_measurement_errors(sample: Callable[[], Any]) -> Callable[[], Any]:
    """A board that hangs or a command that fails mid-sampling ends the check as ERROR, and the samples
    measured before it stay in the results (and on disk) instead of vanishing with an exception."""

    def guarded() -> Any:
        try:
            return sample()
        except HilError as exc:
            raise MeasurementError(f"{type(exc).__name__}: {exc}", raw_output=getattr(exc, "output", "")) from exc

    return guarded
