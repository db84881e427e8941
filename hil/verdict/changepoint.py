"""Where did a metric step? Change points in a metric's history of run medians (docs/running.md, trend.html).

ruptures finds the candidates: binary segmentation, least-squares cost, a BIC-like penalty from the history's
own run-to-run noise (a robust estimate from successive differences, never below `min_spread`). A candidate is
kept only when hil's own rules agree, as for a regression: the medians of the runs either side differ by at least
`min_effect`, and a Welch t-test of the two segments' run medians gives p < `alpha`; a rejected one is merged away
and its neighbours judged again. The run is the unit of evidence: samples of one boot say nothing about the next.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MIN_RUNS = 2  # runs on each side of a step: a t-test needs two, and one odd run is no step
MIN_SPREAD = 0.01  # relative run-to-run noise assumed at least (hil.verdict.baseline.MIN_RUN_SPREAD)


@dataclass(frozen=True)
class Step:
    """A step in a metric's history: `index` is the first run after it."""

    index: int
    before: float  # median of the run medians before the step (back to the previous step)
    after: float  # and after it (up to the next)
    change: float  # (after - before) / |before|
    p_value: float

    @property
    def confidence(self) -> float:
        return 1.0 - self.p_value


def find_steps(
    medians: Sequence[float], *, min_effect: float = 0.05, alpha: float = 0.001, min_spread: float = MIN_SPREAD
) -> list[Step]:
    """The steps in `medians` (one per run, oldest first)."""
    values = np.asarray(medians, dtype=float)
    if values.size < 2 * MIN_RUNS or not np.all(np.isfinite(values)):
        return []
    scale = float(np.median(np.abs(values))) or 1.0
    relative = values / scale
    # The noise from successive differences: a step moves one difference only, so it barely counts.
    noise = max(1.4826 * float(np.median(np.abs(np.diff(relative)))) / math.sqrt(2), min_spread)
    penalty = 2.0 * math.log(values.size) * noise**2
    import ruptures  # here: it imports scipy.stats (about a second), which a run without a history never needs

    found = ruptures.Binseg(model="l2", min_size=MIN_RUNS, jump=1).fit(relative.reshape(-1, 1)).predict(pen=penalty)
    candidates = found[:-1]  # ruptures ends the list with the series' length
    while True:  # a candidate the rules reject is merged away, and its neighbours are judged again
        steps = [_judge(values, candidates, position) for position in range(len(candidates))]
        rejected = [i for i, step in enumerate(steps) if abs(step.change) < min_effect or step.p_value >= alpha]
        if not rejected:
            return steps
        del candidates[max(rejected, key=lambda i: steps[i].p_value)]


def _judge(values: np.ndarray, candidates: list[int], position: int) -> Step:
    """The step at candidates[position], between the segments either side of it."""
    edges = [0, *candidates, values.size]
    left = values[edges[position] : edges[position + 1]]
    right = values[edges[position + 1] : edges[position + 2]]
    before, after = float(np.median(left)), float(np.median(right))
    change = (after - before) / (abs(before) or 1.0)
    return Step(edges[position + 1], before, after, change, _welch_p(left, right))


def _welch_p(left: np.ndarray, right: np.ndarray) -> float:
    if np.ptp(left) == 0 and np.ptp(right) == 0:  # identical runs on both sides: the step is all there is
        return 0.0 if left[0] != right[0] else 1.0
    from scipy import stats as st  # a second to import: only when a history has a step to judge

    return float(st.ttest_ind(left, right, equal_var=False).pvalue)
