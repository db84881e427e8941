"""Comparison against a stored baseline: a regression needs both significance and size.

Significance alone flags harmless 0.5% shifts once there are enough samples; size alone flags
noise when there are few. So (as asv and Perfherder do) a regression is a one-sided Mann-Whitney U
test in the "worse" direction with p < alpha AND a median change at least `min_effect` worse.
Mann-Whitney, not a t-test: it assumes no normality, and one stalled run does not dominate it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from scipy import stats as st

from hil.verdict.result import BaselineComparison, MetricResult, Verdict
from hil.verdict.spec import Direction


def smallest_p(n: int, m: int) -> float:
    """The smallest one-sided p-value an exact Mann-Whitney test can reach with n and m samples."""
    return 1 / math.comb(n + m, n)


def compare(
    samples: Sequence[float],
    baseline_samples: Sequence[float],
    *,
    direction: Direction,
    min_effect: float,
    alpha: float = 0.01,
    baseline_run: str,
) -> BaselineComparison:
    """Is `samples` a regression against `baseline_samples`? See the module docstring for the rule."""
    current, base = np.asarray(samples, dtype=float), np.asarray(baseline_samples, dtype=float)
    if current.size < 2 or base.size < 2:
        raise ValueError(f"need at least 2 samples on each side, got {current.size} and {base.size}")
    if not (np.all(np.isfinite(current)) and np.all(np.isfinite(base))):
        raise ValueError("samples must be finite numbers")
    if min_effect < 0 or not 0 < alpha < 1:
        raise ValueError(f"need min_effect >= 0 and 0 < alpha < 1, got {min_effect} and {alpha}")
    median, base_median = float(np.median(current)), float(np.median(base))
    if base_median == 0:
        raise ValueError("baseline median is 0: a relative change is undefined")

    change = (median - base_median) / abs(base_median)
    worse_by = -change if direction is Direction.HIGHER else change
    # "less": the current samples tend to be smaller than the baseline's (slower, for throughput).
    alternative = "less" if direction is Direction.HIGHER else "greater"
    p_value = float(st.mannwhitneyu(current, base, alternative=alternative).pvalue)
    if math.isnan(p_value):  # scipy gives NaN when every value ties: no evidence of a shift
        p_value = 1.0
    significant, material = p_value < alpha, worse_by >= min_effect
    regression = significant and material

    shift = f"median {median:.4g} vs {base_median:.4g} ({change:+.1%}, min effect {min_effect:.0%})"
    test = f"one-sided Mann-Whitney p={p_value:.2g} {'<' if significant else '>='} {alpha:g}"
    if regression:
        reason = f"regression against {baseline_run}: {shift}, {test}"
    else:
        missing = [] if material else [f"the change is not {min_effect:.0%} worse"]
        if not significant:
            missing.append("the shift is not significant")
            floor = smallest_p(current.size, base.size)
            if floor >= alpha:
                missing.append(
                    f"{current.size} vs {base.size} samples cannot reach p < {alpha:g} "
                    f"(smallest possible p {floor:.2g}): store more baseline samples"
                )
        reason = f"no regression against {baseline_run}: {shift}, {test}; " + "; ".join(missing)
    return BaselineComparison(
        baseline_run=baseline_run,
        baseline_median=base_median,
        baseline_n=int(base.size),
        change=change,
        p_value=p_value,
        regression=regression,
        alpha=alpha,
        min_effect=min_effect,
        reason=reason,
    )


def apply_baseline(result: MetricResult, comparison: BaselineComparison) -> MetricResult:
    """A copy of `result` with the comparison attached; a passing verdict becomes REGRESSION if it is one.

    FAIL, UNSTABLE and ERROR stay as they are: they already fail, and their reasons say more.
    """
    if comparison.regression and result.verdict.passed:
        reason = f"{comparison.reason} (band verdict {result.verdict}: {result.reason})"
        return replace(result, verdict=Verdict.REGRESSION, reason=reason, baseline=comparison)
    return replace(result, baseline=comparison)
