"""Descriptive statistics of one metric's samples: plain numpy/scipy, no pytest, no board.

Quartiles are numpy.percentile's (linear interpolation) to the last bit; the t, chi-square and normal distributions
come from scipy.special: scipy.stats costs half a second to import, which every pytest run and every
`hil compare` paid. Mann-Whitney's p-value is scipy.stats.mannwhitneyu's own computation (method "auto", continuity
corrected), its ranks in plain Python and its normal tail from scipy.special, held equal to it by
tests/verdict/test_stats.py. Outliers are flagged by index and never removed: a release engineer must see the slow
run, not a prettier mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

import numpy as np
from scipy import special

from hil.verdict.result import SampleStats

TUKEY_K = 1.5  # Tukey's fences: outside [Q1 - k·IQR, Q3 + k·IQR]


@cache
def t_quantile(confidence: float, dof: int) -> float:
    """Two-sided Student-t quantile; cached because the adaptive sampler asks after every sample."""
    return t_below(0.5 + confidence / 2, dof)


def t_below(probability: float, dof: float) -> float:
    """The x with P(T <= x) = probability for Student's t with `dof` degrees of freedom (scipy's t.ppf)."""
    return float(special.stdtrit(dof, probability))


def t_above(x: float, dof: float) -> float:
    """P(T > x) for Student's t with `dof` degrees of freedom (scipy's t.sf)."""
    return float(special.stdtr(dof, -x))


@cache
def chi2_quantile(probability: float, dof: int) -> float:
    """The x with P(X <= x) = probability for chi-square with `dof` degrees of freedom (scipy's chi2.ppf)."""
    return float(special.chdtri(dof, 1 - probability))


def mann_whitney_p(x: Sequence[float], y: Sequence[float], alternative: str) -> float:
    """scipy.stats.mannwhitneyu(x, y, alternative=alternative).pvalue for "less" or "greater": exact when a side has
    at most 8 samples and no two values tie, else the normal approximation with tie and continuity corrections.
    Ranks in plain Python: a gate ranks a few samples per row, hundreds of rows, and numpy's per-call cost was most
    of `hil compare`'s statistics."""
    n1, n2 = len(x), len(y)
    ordered = sorted([*x, *y])
    average_rank, ties, start = {}, [], 0
    for end in range(1, len(ordered) + 1):
        if end == len(ordered) or ordered[end] != ordered[start]:
            average_rank[ordered[start]] = (start + 1 + end) / 2  # ranks start+1 .. end
            ties.append(end - start)
            start = end
    u1 = sum(average_rank[value] for value in x) - n1 * (n1 + 1) / 2
    u = u1 if alternative == "greater" else n1 * n2 - u1  # "less": the survival of U2, by symmetry
    if min(n1, n2) <= 8 and max(ties) == 1:
        counts = _u_counts(min(n1, n2), max(n1, n2))
        return min(1.0, sum(counts[int(u) :]) / math.comb(n1 + n2, n1))
    n = n1 + n2
    sd = math.sqrt(n1 * n2 / 12 * ((n + 1) - sum(t**3 - t for t in ties) / (n * (n - 1))))
    z = (u - n1 * n2 / 2 - 0.5) / sd if sd else -math.inf  # every value tied: sd 0, p 1 as scipy's
    return min(1.0, max(0.0, float(special.ndtr(-z))))


@cache
def _u_counts(m: int, n: int) -> tuple[int, ...]:
    """How many orderings of m and n distinct values give each U (pairs where one of the m is the larger)."""
    if m == 0 or n == 0:
        return (1,)
    counts = [0] * (m * n + 1)
    for u, count in enumerate(_u_counts(m - 1, n)):  # the largest value is one of the m: it beats all n
        counts[u + n] += count
    for u, count in enumerate(_u_counts(m, n - 1)):
        counts[u] += count
    return tuple(counts)


def quartiles(ordered: Sequence[float]) -> tuple[float, float, float]:
    """numpy.percentile(ordered, [25, 50, 75]) to the last bit (its "linear" method and its lerp, which works from
    the nearer neighbour), without numpy's per-call cost; `ordered`: at least one value, ascending."""
    last = len(ordered) - 1
    found = []
    for q in (0.25, 0.5, 0.75):
        below = math.floor(last * q)
        t = last * q - below
        a, b = ordered[below], ordered[min(below + 1, last)]
        found.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)
    return found[0], found[1], found[2]


class ZeroMeanError(ValueError):
    """The samples average exactly 0, so their coefficient of variation is undefined."""


def describe(values: Sequence[float], confidence: float = 0.95) -> SampleStats:
    """Statistics of `values` (counted samples, in order) with a Student-t interval of the mean.

    CV is std/|mean|. Identical samples have CV 0 whatever their mean, so a loss metric that is 0 on
    every run is perfectly stable; samples that spread but average exactly 0 (only possible with
    negative values) raise ZeroMeanError, a ValueError, since no relative spread exists there.
    Also raises ValueError for fewer than two values, non-finite values, or a confidence outside (0, 1).
    """
    data = np.asarray(values, dtype=float)
    if data.ndim != 1 or data.size < 2:
        raise ValueError(f"need at least 2 samples for statistics, got {data.size}")
    if not np.all(np.isfinite(data)):
        raise ValueError(f"samples must be finite numbers, got {data.tolist()}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")

    n = int(data.size)
    mean = float(np.mean(data))
    std = float(np.std(data, ddof=1))
    if std > 0 and mean == 0:
        raise ZeroMeanError("the samples spread around a mean of 0: their coefficient of variation is undefined")
    sem = std / math.sqrt(n)
    # Same as scipy.stats.t.interval(confidence, n - 1, loc=mean, scale=sem), which returns NaN for
    # identical samples (scale 0) where the interval is simply the mean.
    half_width = t_quantile(confidence, n - 1) * sem
    ci_low, ci_high = mean - half_width, mean + half_width
    q1, median, q3 = quartiles(sorted(data.tolist()))
    iqr = q3 - q1
    low_fence, high_fence = q1 - TUKEY_K * iqr, q3 + TUKEY_K * iqr
    outliers = [int(i) for i in np.flatnonzero((data < low_fence) | (data > high_fence))]
    return SampleStats(
        n=n,
        mean=mean,
        median=median,
        std=std,
        cv=std / abs(mean) if std > 0 else 0.0,  # abs: a spread is never negative
        ci_low=ci_low,
        ci_high=ci_high,
        confidence=confidence,
        minimum=float(np.min(data)),
        maximum=float(np.max(data)),
        q1=q1,
        q3=q3,
        outliers=outliers,
    )


def cv_lower_bound(stats: SampleStats, confidence: float = 0.95) -> float:
    """One-sided lower confidence bound of the true CV, from the chi-square interval of the variance.

    Treats the mean as exact (its relative error is far below the CV's at the CVs that matter here),
    so it is the lower bound of σ/|mean|: (n-1)·s²/σ² ~ χ²(n-1) for normal samples. Heavy-tailed
    samples make it optimistic (the bound comes out high), i.e. they are called UNSTABLE sooner.
    """
    if stats.std == 0:
        return 0.0
    dof = stats.n - 1
    return stats.cv * math.sqrt(dof / chi2_quantile(confidence, dof))
