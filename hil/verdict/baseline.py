"""Comparison against a stored baseline: a regression must be large, and larger than clean runs show.

Between runs the median moves (boot-to-boot, thermal state, a busy lab PC; 5-20% on the virtual lab), so one
run's samples are no independent draws (docs/verdict.md, "Regressions across runs"). A regression needs all of:
1. size: the median is worse than the baseline's center (the median of its run medians) by at least
   `min_effect` (a center of 0, a count such as corrupt frames, is measured against one unit instead);
2. within the run: a one-sided Mann-Whitney U test of this run's samples against the baseline's, p < `alpha`
   (as asv and Perfherder do; no normality assumed, one stalled sample does not dominate);
3. between runs: with the relative run-to-run SD s, k baseline runs and m new ones, t = worse / (s *
   sqrt(1/m + 1/k)) against Student's t (a prediction interval), p_run < `alpha_run`. s is the metric's own
   spread shrunk toward the one pooled over the board's metrics of its unit (`PRIOR_RUNS` runs of weight), and
   never below the pair's calibrated `run_spread` (`MIN_RUN_SPREAD` where none is set); with one baseline run and
   nothing pooled it is unknown, and the comparison says so.
A regression found is only suspected: the plugin re-measures after a power cycle and calls it on both runs
together (their samples in rule 2, the median of their run medians in rules 1 and 3); the re-measure must also
be `min_effect` worse on its own, so a glitch gone after the power cycle is not averaged into a regression.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from hil.verdict.result import BaselineComparison, MetricResult, Verdict
from hil.verdict.spec import Direction
from hil.verdict.stats import chi2_quantile, mann_whitney_p, t_above

PRIOR_RUNS = 4  # weight, in runs, of the board's pooled run-to-run spread in a metric's own estimate
# Without a calibration, no measurement repeats across boots better than 1%: identical runs are luck. A pair may
# calibrate less (boards.yaml run_spread): the virtual clock's figures repeat to 0.02% (docs/virtual-lab.md).
MIN_RUN_SPREAD = 0.01


@dataclass(frozen=True)
class RunSpread:
    """Relative standard deviation of run medians, its degrees of freedom, and how it was estimated."""

    relative_sd: float
    df: int
    how: str


def smallest_p(n: int, m: int) -> float:
    """The smallest one-sided p-value an exact Mann-Whitney test can reach with n and m samples."""
    return 1 / math.comb(n + m, n)


def _relative_ss(medians: Sequence[float]) -> tuple[float, int]:
    """Sum of squared relative deviations from the mean, and its degrees of freedom."""
    values = np.asarray(medians, dtype=float)
    if values.size < 2 or not np.all(np.isfinite(values)) or values.mean() == 0:
        return 0.0, 0
    relative = values / values.mean() - 1
    return float(np.sum((relative - relative.mean()) ** 2)), int(values.size - 1)


def pool(run_medians: Mapping[str, Sequence[float]]) -> tuple[float, int]:
    """The squared relative deviations and degrees of freedom of every metric's run medians, summed: the spread
    pooled over a board's metrics of one unit (worked out once for all of them: a gate asks for every key)."""
    each = [_relative_ss(medians) for medians in run_medians.values()]
    return sum(ss for ss, _ in each), sum(df for _, df in each)


def run_spread(
    run_medians: Mapping[str, Sequence[float]],
    key: str,
    floor: float = MIN_RUN_SPREAD,
    pooled: tuple[float, int] | None = None,
) -> RunSpread | None:
    """The run-to-run spread for metric `key`, from the run medians of every metric of one board in its unit
    (the caller picks them), never below `floor` (the pair's calibrated `run_spread`: three runs that happen to
    agree do not make a board steady); None when no metric has two runs: the spread is unknown."""
    own_ss, own_df = _relative_ss(run_medians.get(key, ()))
    pooled_ss, pooled_df = pool(run_medians) if pooled is None else pooled
    if pooled_df == 0:
        return None
    prior_df = min(PRIOR_RUNS, pooled_df)
    variance = (own_ss + prior_df * pooled_ss / pooled_df) / (own_df + prior_df)
    how = (
        f"{own_df + 1} runs of this metric, shrunk toward {pooled_df} df pooled over the board"
        if own_df
        else f"pooled over the board's metrics ({pooled_df} df): this metric has one run"
    )
    if math.sqrt(variance) < floor and floor != MIN_RUN_SPREAD:
        how += f"; taken as the pair's {floor * 100:.2g}% (boards.yaml run_spread)"
    return RunSpread(max(math.sqrt(variance), floor), own_df + prior_df, how)


def wider_than(spread: RunSpread, calibrated: float, alpha: float = 0.05) -> bool:
    """Did the runs spread more than the pair's calibrated run_spread, beyond chance? A one-sided chi-square test
    of their variance against it with the estimate's degrees of freedom: two runs of one image read 40.4% where
    40% was calibrated (an idle vCPU's share, 2026-11-30), which says nothing of a loaded lab; at 1 df it takes
    twice the calibrated spread."""
    return spread.df * (spread.relative_sd / calibrated) ** 2 > chi2_quantile(1 - alpha, spread.df)


def worsening(change: float, direction: Direction) -> float:
    """How much worse a signed relative change is (negative: better) for a metric of `direction`."""
    return -change if direction is Direction.HIGHER else change


def _as_runs(baseline: Sequence[float] | Sequence[Sequence[float]]) -> list[np.ndarray]:
    if len(baseline) and isinstance(baseline[0], int | float):  # one run given as a flat list
        return [np.asarray(baseline, dtype=float)]
    return [np.asarray(run, dtype=float) for run in baseline]


def compare(
    samples: Sequence[float] | Sequence[Sequence[float]],
    baseline: Sequence[float] | Sequence[Sequence[float]],
    *,
    direction: Direction,
    min_effect: float,
    alpha: float = 0.01,
    alpha_run: float = 0.05,
    spread: RunSpread | None = None,
    baseline_run: str,
    more_runs: str = "store more with --update-baseline",
) -> BaselineComparison:
    """Is `samples` a regression against `baseline` (by the module docstring's rule)? Each is one run's samples
    or a list of runs' samples."""
    current_runs = _as_runs(samples)
    current = np.concatenate(current_runs) if current_runs else np.array([])
    runs = _as_runs(baseline)
    pooled = np.concatenate(runs) if runs else np.array([])
    if current.size < 2 or pooled.size < 2 or any(run.size < 1 for run in [*runs, *current_runs]):
        raise ValueError(f"need at least 2 samples on each side, got {current.size} and {pooled.size}")
    if not (np.all(np.isfinite(current)) and np.all(np.isfinite(pooled))):
        raise ValueError("samples must be finite numbers")
    if min_effect < 0 or not 0 < alpha < 1 or not 0 < alpha_run < 1:
        raise ValueError(f"need min_effect >= 0 and alphas in (0, 1), got {min_effect}, {alpha}, {alpha_run}")
    # statistics.median: a handful of samples, where numpy's per-call overhead was a gate's largest cost
    median = statistics.median(statistics.median(run.tolist()) for run in current_runs)
    center = statistics.median(statistics.median(run.tolist()) for run in runs)
    # A count whose good value is 0 (corrupt frames, lost datagrams): no relative change exists, so the
    # change is counted against one unit: 0 -> 3 corrupt frames is +300%, any rise is material.
    scale = abs(center) if center != 0 else 1.0
    change = (median - center) / scale
    worse_by = worsening(change, direction)
    # "less": the current samples tend to be smaller than the baseline's (slower, for throughput).
    alternative = "less" if direction is Direction.HIGHER else "greater"
    p_value = mann_whitney_p(current.tolist(), pooled.tolist(), alternative)
    run_p = None
    if spread is not None:
        k, m = len(runs), len(current_runs)
        run_p = t_above(worse_by / (spread.relative_sd * math.sqrt(1 / m + 1 / k)), spread.df)
    significant, material = p_value < alpha, worse_by >= min_effect
    beyond_runs = run_p is None or run_p < alpha_run
    comparison = BaselineComparison(
        baseline_run=baseline_run,
        baseline_median=center,
        baseline_n=int(pooled.size),
        change=change,
        p_value=p_value,
        regression=significant and material and beyond_runs,
        alpha=alpha,
        min_effect=min_effect,
        baseline_runs=len(runs),
        run_spread=None if spread is None else spread.relative_sd,
        run_spread_df=0 if spread is None else spread.df,
        run_p=run_p,
    )
    reason = _reason(comparison, median, len(current_runs), current.size, spread, alpha_run, material, more_runs)
    return replace(comparison, reason=reason)


def _reason(
    comparison: BaselineComparison,
    median: float,
    runs: int,
    n: int,
    spread: RunSpread | None,
    alpha_run: float,
    material: bool,
    more_runs: str,
) -> str:
    """One line: why `comparison` (of `runs` runs, `n` samples, at `median`; `material`: worse by at least
    min_effect) is, or is not, a regression."""
    c = comparison
    significant, beyond_runs = c.p_value < c.alpha, c.run_p is None or c.run_p < alpha_run
    runs_text = f"{c.baseline_runs} baseline run{'s' if c.baseline_runs != 1 else ''}"
    if runs > 1:
        runs_text = f"{runs} runs against {runs_text}"
    against = "" if c.baseline_median != 0 else " of one unit: the baseline is 0"
    shift = (
        f"median {median:.4g} vs {c.baseline_median:.4g} ({c.change:+.1%}{against}, "
        f"min effect {c.min_effect:.0%}, {runs_text})"
    )
    test = f"Mann-Whitney p={c.p_value:.2g} {'<' if significant else '>='} {c.alpha:g}"
    if spread is None:
        between = f"run-to-run spread unknown (one baseline run: {more_runs})"
    else:
        between = (
            f"clean runs vary by {spread.relative_sd:.1%} ({spread.how}), "
            f"run p={c.run_p:.2g} {'<' if beyond_runs else '>='} {alpha_run:g}"
        )
    if c.regression:
        return f"regression against {c.baseline_run}: {shift}, {test}, {between}"
    missing = [] if material else [f"the change is not {c.min_effect:.0%} worse"]
    if not significant:
        missing.append("the shift is not significant within the run")
        floor = smallest_p(n, c.baseline_n)
        if floor >= c.alpha:
            missing.append(
                f"{n} vs {c.baseline_n} samples cannot reach p < {c.alpha:g} "
                f"(smallest possible p {floor:.2g}): store more baseline samples"
            )
    if not beyond_runs:
        missing.append("clean runs move this much")
    return f"no regression against {c.baseline_run}: {shift}, {test}, {between}; " + "; ".join(missing)


def attempt_summary(result: MetricResult) -> dict[str, Any]:
    """What a confirmation keeps of the measurement that raised the suspicion."""
    comparison = result.baseline
    figures = {name: getattr(comparison, name, None) for name in ("change", "p_value", "run_p")}  # None: no comparison
    return {
        "median": result.stats.median if result.stats else None,
        "samples": result.values,
        "started": result.started,
        **figures,
        "reason": comparison.reason if comparison else "",
    }


def confirm(combined: BaselineComparison, first: MetricResult, second: BaselineComparison) -> BaselineComparison:
    """Both attempts together (`combined`), the re-measure alone (`second`): see the module docstring."""
    summary = attempt_summary(first)
    before = f"{summary['change']:+.1%}" if summary["change"] is not None else "?"
    again = f"re-measure {second.change:+.1%}"
    worse_again = (-second.change if combined.change < 0 else second.change) >= combined.min_effect
    direction_worse = (combined.change < 0) == (second.change < 0)
    regression = combined.regression and worse_again and direction_worse
    if regression:
        reason = f"{combined.reason}; confirmed after a power cycle (first attempt {before}, {again})"
    elif combined.regression:
        reason = (
            f"suspected regression not confirmed after a power cycle: first attempt {before}, {again} "
            f"(not {combined.min_effect:.0%} worse on its own)"
        )
    else:
        reason = f"suspected regression not confirmed after a power cycle (first attempt {before}): {combined.reason}"
    return replace(combined, regression=regression, reason=reason, first_attempt=summary)


def apply_baseline(result: MetricResult, comparison: BaselineComparison) -> MetricResult:
    """A copy of `result` with the comparison attached; a passing verdict becomes REGRESSION if it is one. Any
    other verdict says more about the run than "slower" and stays, but a regression beside it is named in its
    reason, the test's failure message: no verdict may hide a slowdown (docs/verdict.md)."""
    if not comparison.regression:
        return replace(result, baseline=comparison)
    if result.verdict.passed:
        reason = f"{comparison.reason} (band verdict {result.verdict}: {result.reason})"
        return replace(result, verdict=Verdict.REGRESSION, reason=reason, baseline=comparison)
    return replace(result, reason=f"{result.reason}; and a {comparison.reason}", baseline=comparison)
