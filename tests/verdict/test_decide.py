"""The decision table of docs/verdict.md: each verdict, each side, marginal cases, the ceiling."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hil.verdict.ceilings import usb_ceiling
from hil.verdict.decide import CvState, ceiling_error, cv_not_falling, cv_state, decide
from hil.verdict.result import SampleStats, Verdict
from hil.verdict.spec import Band, Ceiling, Direction, MetricSpec

FLOOR = MetricSpec("usb.msc.read", "MB/s", Direction.HIGHER, Band(low=90.0))
WINDOW = MetricSpec("usb.msc.read", "MB/s", Direction.HIGHER, Band(95.0, 105.0))
LATENCY = MetricSpec("usb.resume", "ms", Direction.LOWER, Band(5.0, 10.0))


def stats(ci_low, ci_high, *, median=None, cv=0.01, n=10, maximum=None) -> SampleStats:
    mean = (ci_low + ci_high) / 2
    return SampleStats(
        n=n,
        mean=mean,
        median=mean if median is None else median,
        std=cv * abs(mean),
        cv=cv,
        ci_low=ci_low,
        ci_high=ci_high,
        confidence=0.95,
        minimum=ci_low,
        maximum=ci_high if maximum is None else maximum,
        q1=ci_low,
        q3=ci_high,
    )


# --- settled answers (final or not) -------------------------------------------------------------------


@pytest.mark.parametrize("final", [False, True])
def test_pass_interval_inside_and_cv_within(final):
    d = decide(stats(95, 99, cv=0.02), FLOOR, final=final)
    assert (d.verdict, d.open, d.side) == (Verdict.PASS, False, None)
    assert "inside the band >= 90 MB/s" in d.reason


def test_interval_touching_the_edge_counts_as_inside():
    assert decide(stats(90, 99), FLOOR).verdict is Verdict.PASS


def test_fail_low_for_throughput_is_too_slow():
    d = decide(stats(80, 85), FLOOR)
    assert (d.verdict, d.open, d.side) == (Verdict.FAIL, False, "low")
    assert d.reason.startswith("too slow") and "[80, 85]" in d.reason and ">= 90 MB/s" in d.reason


def test_fail_high_for_throughput_says_check_the_band():
    d = decide(stats(110, 112), WINDOW)
    assert (d.verdict, d.side) == (Verdict.FAIL, "high")
    assert "above the band [95, 105] MB/s" in d.reason and "faster than expected" in d.reason


def test_fail_high_for_latency_is_too_high():
    d = decide(stats(12, 13), LATENCY)
    assert (d.verdict, d.side) == (Verdict.FAIL, "high")
    assert d.reason.startswith("too high")


def test_fail_low_for_latency_says_better_than_expected():
    d = decide(stats(2, 3), LATENCY)
    assert (d.verdict, d.side) == (Verdict.FAIL, "low")
    assert "better than expected" in d.reason


def test_interval_outside_fails_even_when_noisy():
    # The whole interval is out: noise cannot rescue it, so FAIL beats UNSTABLE.
    assert decide(stats(70, 80, cv=0.3, n=20), FLOOR).verdict is Verdict.FAIL


# --- open answers and what the limit makes of them -----------------------------------------------------


def test_straddling_is_open_until_the_limit():
    d = decide(stats(88, 95, median=91), FLOOR)
    assert d.open and "undecided after 10 samples" in d.reason and "band edge 90 MB/s" in d.reason
    assert d.verdict is Verdict.MARGINAL  # what stopping now would give


def test_straddling_at_the_limit_with_median_inside_is_marginal():
    d = decide(stats(88, 95, median=91), FLOOR, final=True)
    assert (d.verdict, d.open, d.side) == (Verdict.MARGINAL, False, None)
    assert d.reason.startswith("marginal") and "median 91 MB/s is inside" in d.reason


def test_straddling_at_the_limit_with_median_outside_is_a_marginal_fail():
    d = decide(stats(85, 91, median=89), FLOOR, final=True)
    assert (d.verdict, d.side) == (Verdict.FAIL, "low")
    assert d.reason.startswith("marginal, too slow") and "median 89 MB/s lies below" in d.reason


def test_straddling_the_high_edge_of_a_latency_band():
    d = decide(stats(9, 11, median=10.5), LATENCY, final=True)
    assert (d.verdict, d.side) == (Verdict.FAIL, "high")
    assert "marginal, too high" in d.reason


def test_interval_wider_than_the_band_names_the_band():
    d = decide(stats(90, 110, median=100), WINDOW)
    assert d.open and "straddles the band [95, 105] MB/s" in d.reason


def test_cv_above_max_but_not_significantly_is_open_then_marginal():
    s = stats(95, 99, cv=0.06, n=5)
    assert cv_state(s, 0.05) is CvState.HIGH
    d = decide(s, FLOOR)
    assert d.open and "CV 6.0% above max 5.0%" in d.reason
    final = decide(s, FLOOR, final=True)
    assert final.verdict is Verdict.MARGINAL and "not significantly" in final.reason


def test_cv_significantly_above_max_is_unstable_at_the_limit():
    s = stats(95, 99, cv=0.20, n=20)
    assert cv_state(s, 0.05) is CvState.UNSTABLE
    assert decide(s, FLOOR).open
    d = decide(s, FLOOR, final=True)
    assert d.verdict is Verdict.UNSTABLE and d.reason.startswith("unstable: CV 20.0% > max 5.0%")
    assert "99% lower bound" in d.reason


def test_unstable_beats_marginal_when_straddling():
    d = decide(stats(85, 99, median=89, cv=0.20, n=20), FLOOR, final=True)
    assert (d.verdict, d.side) == (Verdict.UNSTABLE, "low")


def test_median_outside_with_interval_inside_does_not_pass():
    # Bimodal samples (half the runs at a lower link speed): the mean's interval fits, a typical run doesn't.
    s = stats(91, 93, median=85, n=100, cv=0.04)
    d = decide(s, FLOOR)
    assert d.open and "skewed" in d.reason
    final = decide(s, FLOOR, final=True)
    assert (final.verdict, final.side) == (Verdict.FAIL, "low") and final.reason.startswith("marginal")


# --- the physical ceiling ------------------------------------------------------------------------------


USB2 = replace(FLOOR, band=Band(low=20.0), ceiling=usb_ceiling("high", "bulk"))


def test_sample_above_the_ceiling_is_an_error_not_a_pass():
    d = decide(stats(40, 50, maximum=60), USB2)
    assert (d.verdict, d.open) == (Verdict.ERROR, False)
    assert "above the physical ceiling 53.25 MB/s" in d.reason
    assert "page cache? wrong device?" in d.reason and "13 × 512 B" in d.reason


def test_ceiling_compares_after_converting_units():
    spec = replace(USB2, unit="MiB/s")
    assert decide(stats(40, 50, maximum=51), spec).verdict is Verdict.ERROR  # 53.48 MB/s
    assert decide(stats(40, 50, maximum=50), spec).verdict is Verdict.PASS  # 52.43 MB/s
    error = ceiling_error(51, "MiB/s", spec.ceiling, what="sample 3")
    assert error is not None and "sample 3 (51 MiB/s (= 53.48 MB/s))" in error.reason


def test_ceiling_is_ignored_for_units_that_do_not_convert():
    spec = replace(USB2, unit="fps")
    assert decide(stats(40, 50, maximum=1000), spec).verdict is Verdict.PASS


def test_value_at_the_ceiling_is_allowed():
    assert ceiling_error(53.248, "MB/s", usb_ceiling("high")) is None
    assert ceiling_error(1.0, "MB/s", None) is None
    assert ceiling_error(2.0, "MB/s", Ceiling(1.0, "MB/s", "test")) is not None


# --- the early-stop rule --------------------------------------------------------------------------------


def test_cv_not_falling_needs_all_three_conditions():
    noisy_inside = stats(95, 105, cv=0.25, n=12)
    rising = [0.20, 0.21, 0.22, 0.25]
    assert cv_not_falling(rising, noisy_inside, FLOOR)
    assert not cv_not_falling([0.30, 0.28, 0.26, 0.25], noisy_inside, FLOOR)  # still falling
    assert not cv_not_falling(rising[1:], noisy_inside, FLOOR)  # too short a history
    assert not cv_not_falling(rising, stats(85, 105, cv=0.25, n=12), FLOOR)  # straddling: sample on
    assert not cv_not_falling(rising, stats(95, 105, cv=0.06, n=12), FLOOR)  # not significant


# --- a floor set by the device's standard (seed 003: USB 2.0 resume timing) --------------------------------


def _resume_spec() -> MetricSpec:
    from hil.catalogue import CATALOGUE

    metric = CATALOGUE.metric("usb.resume.time")
    assert metric.floor is not None and metric.floor.value == 30.0  # TDRSMDN 20 ms + TRSMRCY 10 ms
    return MetricSpec(metric.name, metric.unit, metric.direction, Band(high=270.0), max_cv=0.5, floor=metric.floor)


@pytest.mark.parametrize("final", [False, True])
def test_a_resume_faster_than_usb_2_allows_is_a_finding_whatever_the_band(final):
    decision = decide(stats(24.0, 40.0, median=35.0, cv=0.1), _resume_spec(), final=final)
    assert decision.verdict is Verdict.FAIL and not decision.open and decision.side == "low"
    assert "faster than the standard allows: the lowest sample (24 ms) is below 30 ms" in decision.reason
    assert "USB 2.0 §7.1.7.7" in decision.reason


def test_a_resume_at_the_spec_minimum_is_judged_by_its_band():
    assert decide(stats(30.0, 34.0, cv=0.05), _resume_spec()).verdict is Verdict.PASS


def test_the_virtual_boards_captured_resume_is_within_the_standard():
    from pathlib import Path

    from hil.measure import usb_resume

    capture = Path(__file__).resolve().parents[1] / "data" / "usb_resume" / "vlab-bot-resume.txt"
    ms = usb_resume.parse(capture.read_text(), device="2-1").ms
    assert decide(stats(ms, ms, cv=0.01), _resume_spec()).verdict is Verdict.PASS  # 209.9 ms on a busy VM
