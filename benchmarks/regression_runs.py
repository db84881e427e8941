"""Regression gates against a baseline when runs differ: within-run noise AND a between-run shift.

    python benchmarks/regression_runs.py [--trials N] [--seed S] [--jobs J]

Samples of one run share that run's boot and machine load. Each simulated run draws its own true mean
(nominal 100 x (1 + N(0, cv_run))), then its samples around it (N(run mean, cv_within)). The baseline
holds R clean runs; the new run is slower by a drop d (0 = nothing changed). Per run: one warm-up
(not used) and 6 counted samples, as the engine takes when a metric settles early.

Gates (a gate "alarms" when it calls the new run a regression):
- engine: hil.verdict.baseline.compare with the baseline's R runs and the run-to-run spread estimated
  from them (hil.verdict.baseline.run_spread, pooled over a board of 12 metrics with the same spreads),
  then the confirmation hil runs: a suspected regression is re-measured in a fresh run (its own shift)
  and called on both runs together, if the fresh run alone is also at least 5% worse.
- engine, no confirmation: the same comparison, called on the first run.
- per-run Mann-Whitney (hil before run-level comparison): one-sided Mann-Whitney p < 0.01 of the new
  run's samples against the pooled baseline samples, and a median at least 5% worse.
- pytest-benchmark: 5 rounds, alarm iff their mean is > 5% below the baseline's mean
  (--benchmark-compare-fail=mean:5%).
All gates see the same draws in a trial (common random numbers), so the comparison is paired.
"""

from __future__ import annotations

import argparse
import itertools
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from hil.verdict.baseline import compare, run_spread
from hil.verdict.spec import Direction

NOMINAL = 100.0
SAMPLES = 6
BOARD_METRICS = 12  # metrics whose run medians pool into the spread estimate, as on the vlab's two pairs
MIN_EFFECT = 0.05
GATES = ("engine", "engine, no confirmation", "per-run Mann-Whitney", "pytest-benchmark")


@dataclass(frozen=True)
class Cell:
    cv_within: float
    cv_run: float
    runs: int  # baseline runs
    drop: float


def _run(rng: np.random.Generator, cell: Cell, drop: float) -> np.ndarray:
    mean = NOMINAL * (1 - drop) * (1 + rng.normal(0, cell.cv_run))
    return mean * (1 + rng.normal(0, cell.cv_within, SAMPLES))


def _suspects(current: np.ndarray | list[np.ndarray], runs: list[np.ndarray], medians: dict[str, list[float]]) -> bool:
    spread = run_spread(medians, "m0")
    return compare(
        current, runs, direction=Direction.HIGHER, min_effect=MIN_EFFECT, spread=spread, baseline_run="b"
    ).regression


def trial(cell: Cell, seed: int, index: int) -> dict[str, bool]:
    rng = np.random.default_rng([seed, int(cell.cv_within * 1000), int(cell.cv_run * 1000), cell.runs, index])
    # The board's other metrics only contribute their run medians to the pooled spread.
    medians = {
        f"m{k}": [float(np.median(_run(rng, cell, 0.0))) for _ in range(cell.runs)] for k in range(1, BOARD_METRICS)
    }
    runs = [_run(rng, cell, 0.0) for _ in range(cell.runs)]
    medians["m0"] = [float(np.median(run)) for run in runs]
    current = _run(rng, cell, cell.drop)
    again = _run(rng, cell, cell.drop)  # the confirmation's fresh run, used only by the engine

    first = _suspects(current, runs, medians)
    pooled = np.concatenate(runs)
    per_run = compare(current, pooled, direction=Direction.HIGHER, min_effect=MIN_EFFECT, baseline_run="b")
    bench_base = runs[-1][:5].mean()
    return {
        "engine": first
        and _suspects([current, again], runs, medians)
        and float(np.median(again)) <= float(np.median([np.median(r) for r in runs])) * (1 - MIN_EFFECT),
        "engine, no confirmation": first,
        "per-run Mann-Whitney": per_run.regression,
        "pytest-benchmark": current[:5].mean() < bench_base * (1 - MIN_EFFECT),
    }


def cell_rates(args: tuple[Cell, int, int]) -> tuple[Cell, dict[str, float]]:
    cell, trials, seed = args
    counts = dict.fromkeys(GATES, 0)
    for index in range(trials):
        for gate, alarmed in trial(cell, seed, index).items():
            counts[gate] += alarmed
    return cell, {gate: counts[gate] / trials for gate in GATES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261123)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    cells = [
        Cell(cv_within, cv_run, runs, drop)
        for cv_within, cv_run, runs, drop in itertools.product(
            (0.02, 0.05), (0.02, 0.05, 0.10), (1, 3, 5), (0.0, 0.05, 0.10, 0.20)
        )
    ]
    started = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        rates = dict(pool.map(cell_rates, [(cell, args.trials, args.seed) for cell in cells]))

    print(f"{args.trials} trials per cell, seed {args.seed}, {time.monotonic() - started:.0f} s")
    print("false alarm = drop 0; detection = drop 5/10/20%. Per gate: false alarm | 5% | 10% | 20%")
    header = "| CV within | CV run | baseline runs | " + " | ".join(GATES) + " |"
    print(header)
    print("|" + "---|" * (3 + len(GATES)))
    for cv_within, cv_run, runs in itertools.product((0.02, 0.05), (0.02, 0.05, 0.10), (1, 3, 5)):
        cols = []
        for gate in GATES:
            figures = [rates[Cell(cv_within, cv_run, runs, d)][gate] * 100 for d in (0.0, 0.05, 0.10, 0.20)]
            cols.append(" / ".join(f"{f:.0f}" if f >= 1 or f == 0 else f"{f:.1f}" for f in figures))
        print(f"| {cv_within:.0%} | {cv_run:.0%} | {runs} | " + " | ".join(cols) + " |")


if __name__ == "__main__":
    main()
