"""Compare hil's verdict engine with three common performance gates on synthetic noisy metrics.

    python benchmarks/verdict_gate.py [--trials N] [--seed S] [--jobs J]

Every metric is a throughput gate: nominal 100 MB/s, band "min = nominal - 10%" (>= 90 MB/s),
samples drawn from a normal distribution around a true mean with a given CV. Gates:
- engine: hil.verdict.sampler.measure_metric with the MetricSpec defaults (warm-up 1, 5..20
  samples, max_cv 5%, 95% CI); against a baseline, hil.verdict.baseline (one-sided Mann-Whitney
  p < 0.01 and a median at least 5% worse).
- engine, max_cv 10%: the same for a metric whose entry declares it noisy.
- fixed N=10: ten samples, pass iff their mean lies in the band.
- Phoronix: 3 runs, one more while σ% >= 3.5, at most 9 (3× the runs), pass iff the mean is in band.
- pytest-benchmark: 5 rounds (its min_rounds), fail iff the mean is > 5% below the baseline mean
  (--benchmark-compare-fail=mean:5%); it has no band, so band scenarios use a baseline at nominal.
Baselines are an earlier run of the same gate at nominal (the engine's own adaptive samples, five
pytest-benchmark rounds); their samples are not counted as cost. The engine's warm-up sample is
counted: it costs board time like any other run. MARGINAL counts as a pass (pytest passes it);
UNSTABLE counts as a fail (it fails the test), and its share is shown.

All gates see the same noise in a given trial (common random numbers, seeded from --seed), so the
comparison is paired and the output reproducible.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from hil.verdict.baseline import apply_baseline, compare
from hil.verdict.result import Verdict
from hil.verdict.sampler import measure_metric
from hil.verdict.spec import Band, Direction, MetricSpec

NOMINAL = 100.0
FLOOR = NOMINAL * 0.90
BAND = Band(low=FLOOR)
SPEC = MetricSpec("sim.throughput", "MB/s", Direction.HIGHER, BAND)


@dataclass(frozen=True)
class Scenario:
    label: str
    kind: str  # "in_band": any fail is false; "below"/"regression": a fail is a detection; "no_change"
    true_mean: float
    cv: float


@dataclass(frozen=True)
class Outcome:
    passed: bool
    samples: int
    unstable: bool = False  # engine only: the fail was UNSTABLE (the CV), not the band


class Noise:
    """Normal samples around a true mean; one generator per (scenario, trial), shared by all gates."""

    def __init__(self, seed: int, scenario: int, trial: int, mean: float, cv: float) -> None:
        self.rng = np.random.default_rng([seed, scenario, trial])
        self.mean, self.cv = mean, cv

    def draw(self, mean: float | None = None) -> float:
        centre = self.mean if mean is None else mean
        return float(self.rng.normal(centre, abs(centre) * self.cv))


def _fake_clock() -> Callable[[], float]:
    ticks = itertools.count()
    return lambda: float(next(ticks))  # one "second" per call: deterministic, the budget never binds


def engine(noise: Noise, scenario: Scenario, spec: MetricSpec = SPEC) -> Outcome:
    baseline = None
    if scenario.kind in ("regression", "no_change"):
        clock = _fake_clock()
        baseline = measure_metric(spec, lambda: noise.draw(NOMINAL), board="sim", clock=clock, wall=clock)
    clock = _fake_clock()
    result = measure_metric(spec, noise.draw, board="sim", clock=clock, wall=clock)
    if baseline is not None:
        comparison = compare(
            result.values,
            baseline.values,
            direction=spec.direction,
            min_effect=spec.min_effect,
            baseline_run="sim-baseline",
        )
        result = apply_baseline(result, comparison)
    return Outcome(
        result.verdict.passed,
        len(result.samples) + len(result.warmup),
        unstable=result.verdict is Verdict.UNSTABLE,
    )


def engine_noisy(noise: Noise, scenario: Scenario) -> Outcome:
    return engine(noise, scenario, replace(SPEC, max_cv=0.10))


def fixed_n(noise: Noise, scenario: Scenario, n: int = 10) -> Outcome:
    values = [noise.draw() for _ in range(n)]
    return Outcome(BAND.contains(float(np.mean(values))), n)


def phoronix(noise: Noise, scenario: Scenario, runs: int = 3, threshold: float = 3.5) -> Outcome:
    values = [noise.draw() for _ in range(runs)]
    while len(values) < 3 * runs and 100 * np.std(values, ddof=1) / np.mean(values) >= threshold:
        values.append(noise.draw())
    return Outcome(BAND.contains(float(np.mean(values))), len(values))


def pytest_benchmark(noise: Noise, scenario: Scenario, rounds: int = 5, fail_pct: float = 5.0) -> Outcome:
    baseline = float(np.mean([noise.draw(NOMINAL) for _ in range(rounds)]))
    current = float(np.mean([noise.draw() for _ in range(rounds)]))
    return Outcome(current >= baseline * (1 - fail_pct / 100), rounds)


GATES: dict[str, Callable[[Noise, Scenario], Outcome]] = {
    "engine": engine,
    "engine, max_cv 10%": engine_noisy,
    "fixed N=10": fixed_n,
    "Phoronix": phoronix,
    "pytest-benchmark": pytest_benchmark,
}
BAND_ONLY = ("fixed N=10", "Phoronix")  # gates without any baseline rule


def scenarios() -> list[Scenario]:
    out = [Scenario(f"false fail: in band, CV {cv:.0%}", "in_band", NOMINAL, cv) for cv in (0.02, 0.05, 0.10)]
    for below, cv in itertools.product((0.05, 0.10), (0.02, 0.05, 0.10)):
        label = f"detected: {below:.0%} below the band, CV {cv:.0%}"
        out.append(Scenario(label, "below", FLOOR * (1 - below), cv))
    for drop, cv in itertools.product((0.05, 0.08), (0.02, 0.05)):
        label = f"detected: {drop:.0%} regression vs baseline, CV {cv:.0%}"
        out.append(Scenario(label, "regression", NOMINAL * (1 - drop), cv))
    for cv in (0.02, 0.05):
        out.append(Scenario(f"false alarm: no change vs baseline, CV {cv:.0%}", "no_change", NOMINAL, cv))
    return out


Totals = dict[str, tuple[int, int, int]]  # gate -> (fails, samples, UNSTABLE fails)


def _run_chunk(args: tuple[int, int, int, int]) -> Totals:
    """(seed, scenario index, first trial, trial count) -> totals over those trials."""
    seed, index, first, count = args
    scenario = scenarios()[index]
    totals: Totals = {}
    for name, gate in GATES.items():
        fails = samples = unstable = 0
        for trial in range(first, first + count):
            outcome = gate(Noise(seed, index, trial, scenario.true_mean, scenario.cv), scenario)
            fails += not outcome.passed
            samples += outcome.samples
            unstable += outcome.unstable
        totals[name] = (fails, samples, unstable)
    return totals


def _chunks(seed: int, trials: int, jobs: int) -> Iterator[tuple[int, int, int, int]]:
    size = max(1, math.ceil(trials / (4 * jobs)))
    for index in range(len(scenarios())):
        for first in range(0, trials, size):
            yield seed, index, first, min(size, trials - first)


def run(trials: int, seed: int, jobs: int) -> list[Totals]:
    sums: list[Totals] = [dict.fromkeys(GATES, (0, 0, 0)) for _ in scenarios()]
    chunks = list(_chunks(seed, trials, jobs))
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for (_, index, _, _), totals in zip(chunks, pool.map(_run_chunk, chunks), strict=True):
            for name, values in totals.items():
                old = sums[index][name]
                sums[index][name] = (old[0] + values[0], old[1] + values[1], old[2] + values[2])
    return sums


def tables(sums: list[Totals], trials: int) -> str:
    names = list(GATES)
    header = "| scenario | " + " | ".join(names) + " |\n|---|" + "---:|" * len(names)
    rates, costs = [header], [header]
    total = dict.fromkeys(names, 0)
    for scenario, row in zip(scenarios(), sums, strict=True):
        rate_cells, cost_cells = [], []
        for name in names:
            fails, samples, unstable = row[name]
            total[name] += samples
            cell = f"{100 * fails / trials:.1f}%"
            if unstable:
                cell += f" ({100 * unstable / trials:.1f}% U)"
            if scenario.kind in ("regression", "no_change") and name in BAND_ONLY:
                cell += " ¹"
            rate_cells.append(cell)
            cost_cells.append(f"{samples / trials:.1f}")
        rates.append(f"| {scenario.label} | " + " | ".join(rate_cells) + " |")
        costs.append(f"| {scenario.label} | " + " | ".join(cost_cells) + " |")
    count = len(sums) * trials
    costs.append("| **all scenarios** | " + " | ".join(f"**{total[n] / count:.2f}**" for n in names) + " |")
    return (
        "Fail rate (a false fail in the first rows, a detection below; U = of which UNSTABLE):\n\n"
        + "\n".join(rates)
        + "\n\n¹ no baseline rule: the band alone decides.\n\n"
        + "Mean samples per verdict (the engine's warm-up included):\n\n"
        + "\n".join(costs)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=2000, help="trials per scenario and gate")
    parser.add_argument("--seed", type=int, default=20240822)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args()
    t0 = time.perf_counter()
    sums = run(args.trials, args.seed, args.jobs)
    print(
        f"Throughput gate, band >= {FLOOR:g} MB/s (nominal {NOMINAL:g} - 10%), normal noise, "
        f"{args.trials} trials per cell, seed {args.seed}.\n"
    )
    print(tables(sums, args.trials))
    print(f"\n{time.perf_counter() - t0:.1f} s wall time, {args.jobs} worker processes")


if __name__ == "__main__":
    main()
