"""Change points in a metric's history of run medians (hil.verdict.changepoint).

Seeded series with the run-to-run spread the virtual lab shows (5%): the statistics' behaviour, not a
board's figures. The rates in docs/running.md come from the same series, 1000 each."""

from __future__ import annotations

import numpy as np
import pytest

from hil.verdict.changepoint import find_steps


def _runs(rng: np.random.Generator, center: float, count: int, spread: float = 0.05) -> list[float]:
    return list(center * (1 + spread * rng.standard_normal(count)))


def test_a_halved_rate_is_found_at_the_run_it_starts_with_its_size_and_confidence():
    rng = np.random.default_rng(1)
    (step,) = find_steps(_runs(rng, 6800, 6) + _runs(rng, 3350, 4))
    assert step.index == 6 and step.change == pytest.approx(-0.5, abs=0.05) and step.confidence > 0.999


def test_a_step_back_is_a_step_of_its_own():
    rng = np.random.default_rng(2)
    steps = find_steps(_runs(rng, 100, 6) + _runs(rng, 70, 6) + _runs(rng, 100, 6))
    assert [step.index for step in steps] == [6, 12] and steps[0].change < 0 < steps[1].change


def test_noise_alone_rarely_steps():
    rng = np.random.default_rng(7)
    stepped = sum(bool(find_steps(_runs(rng, 100, 20))) for _ in range(200))
    assert stepped <= 0.06 * 200  # 3.3% of 1000 such histories


def test_a_step_smaller_than_min_effect_is_not_one():
    assert find_steps([100, 100.5, 99.5, 100, 97, 97.5, 96.5, 97], min_effect=0.05) == []
    (step,) = find_steps([100, 100.5, 99.5, 100, 97, 97.5, 96.5, 97], min_effect=0.02)
    assert step.index == 4


@pytest.mark.parametrize("history", [[], [1.0], [1.0, 2.0, 3.0], [1.0, float("nan"), 1.0, 1.0]])
def test_too_short_or_not_finite_histories_have_no_step(history):
    assert find_steps(history) == []


def test_identical_runs_on_both_sides_are_a_certain_step():
    (step,) = find_steps([10.0, 10.0, 10.0, 5.0, 5.0, 5.0])
    assert step.index == 3 and step.p_value == 0.0
