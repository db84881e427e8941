"""What a comparison could have seen: the smallest drop it can call a regression, and the reference runs
that would let it call one of `min_effect`.

hil.verdict.baseline calls a regression when the drop is at least min_effect, significant within the
runs (Mann-Whitney, p < alpha) and beyond the run-to-run spread s of k reference runs for m candidate
runs (Student's t, p < alpha_run): a drop below t(1 - alpha_run, df) * s * sqrt(1/m + 1/k) passes
whatever it is, and with too few samples no p below alpha exists at all. Plain module: no pytest.
"""

from __future__ import annotations

import math

from hil.verdict.baseline import PRIOR_RUNS, RunSpread, smallest_p
from hil.verdict.stats import t_below

ALPHA, ALPHA_RUN = 0.01, 0.05  # hil.verdict.baseline.compare's defaults, which the gate uses
MAX_RUNS_ASKED = 50  # beyond this many reference runs the row says "more than"


def smallest_drop(
    spread: RunSpread | None, reference_runs: int, candidate_runs: int, samples: tuple[int, int], min_effect: float
) -> float | None:
    """The smallest relative worsening the comparison can call a regression; None: none at all (too few
    samples for p < ALPHA). `samples`: candidate and reference sample counts."""
    if smallest_p(*samples) >= ALPHA:
        return None
    if spread is None:  # one reference run: the run-to-run rule is not applied
        return min_effect
    return max(min_effect, _beyond_runs(spread.relative_sd, spread.df, reference_runs, candidate_runs))


def _beyond_runs(relative_sd: float, df: int, k: int, m: int) -> float:
    return t_below(1 - ALPHA_RUN, max(df, 1)) * relative_sd * math.sqrt(1 / m + 1 / k)


def runs_needed(relative_sd: float, min_effect: float, candidate_runs: int) -> int | None:
    """Reference runs at this spread that make a drop of min_effect visible; None: more than MAX_RUNS_ASKED."""
    for k in range(2, MAX_RUNS_ASKED + 1):
        if _beyond_runs(relative_sd, k - 1 + PRIOR_RUNS, k, candidate_runs) <= min_effect:
            return k
    return None


def describe(drop: float | None, samples: tuple[int, int]) -> str:
    if drop is None:
        return f"could catch no drop: {samples[0]} vs {samples[1]} samples cannot reach p < {ALPHA:g}"
    return f"could catch a drop of {drop:.1%} or more"
