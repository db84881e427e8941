"""When the diagnosis runs: after a FAIL or REGRESSION only, once per check, within its bound, never with
--no-diagnose, and never changing a verdict. The diagnoses here are functions that record their calls; the
real one runs on the virtual lab (tests/vlab/test_diagnose_vlab.py)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from hil import confirmation, diagnose
from hil.errors import BoardTimeout
from hil.verdict.result import BaselineComparison, MetricResult, StopReason, Verdict
from hil.verdict.spec import Direction


def result(verdict: Verdict, *, regressed: bool = False, side: str | None = None) -> MetricResult:
    baseline = None
    if regressed:
        baseline = BaselineComparison(
            baseline_median=50.0,
            baseline_n=10,
            baseline_run="r1",
            change=-0.2,
            p_value=0.001,
            alpha=0.01,
            regression=True,
            min_effect=0.05,
        )
    return MetricResult(
        metric="usb.msc.read",
        board="vlab-ss",
        params={"bs": "1M"},
        unit="MB/s",
        direction=Direction.HIGHER,
        band=None,
        max_cv=0.2,
        verdict=verdict,
        reason="",
        stop_reason=StopReason.DECIDED,
        baseline=baseline,
        side=side,
    )


def item(*, no_diagnose: bool = False, seconds: float = 60.0, suspected: list | None = None):
    options = {"no_diagnose": no_diagnose, "diagnose_s": seconds}
    stash = {confirmation.SUSPECTED: suspected or []}
    return SimpleNamespace(config=SimpleNamespace(getoption=options.__getitem__), stash=stash)


class Recorded:
    def __init__(self, *lines: str, error: Exception | None = None) -> None:
        self.calls = 0
        self.lines = lines
        self.error = error

    def __call__(self, deadline: float, found: list[str]) -> None:
        self.calls += 1
        found.extend(self.lines)
        if self.error is not None:
            raise self.error


@pytest.mark.parametrize("verdict", [Verdict.PASS, Verdict.MARGINAL, Verdict.UNSTABLE, Verdict.ERROR, Verdict.INFO])
def test_a_check_that_did_not_miss_is_not_diagnosed(verdict):
    check = [result(verdict)]
    diagnosis = Recorded("never")
    diagnose.after_verdict(item(), check, diagnosis)
    assert diagnosis.calls == 0 and "diagnosis" not in check[0].facts.notes


def test_a_fail_is_diagnosed_once_and_every_missed_result_keeps_the_lines():
    check = [result(Verdict.FAIL, side="low"), result(Verdict.PASS), result(Verdict.UNSTABLE, regressed=True)]
    diagnosis = Recorded("the raw device reads 41 MB/s, the file system 23: the loss is above the block layer")
    diagnose.after_verdict(item(), check, diagnosis)
    assert diagnosis.calls == 1
    assert check[0].facts.notes["diagnosis"][0].startswith("the raw device reads 41 MB/s")
    assert check[0].facts.notes["diagnosis"][-1].startswith("diagnosed in ")
    assert check[2].facts.notes["diagnosis"] == check[0].facts.notes["diagnosis"]  # UNSTABLE that also regressed
    assert "diagnosis" not in check[1].facts.notes
    assert [r.verdict for r in check] == [Verdict.FAIL, Verdict.PASS, Verdict.UNSTABLE]


def test_no_diagnose_turns_it_off():
    diagnosis = Recorded("never")
    diagnose.after_verdict(item(no_diagnose=True), [result(Verdict.FAIL, side="low")], diagnosis)
    assert diagnosis.calls == 0


def test_a_suspected_regression_waits_for_its_confirmation():
    suspected = result(Verdict.REGRESSION, regressed=True)
    diagnosis = Recorded("never")
    diagnose.after_verdict(item(suspected=[suspected]), [suspected], diagnosis)
    assert diagnosis.calls == 0


def test_a_diagnosis_that_fails_keeps_what_it_found_and_says_why_it_stopped():
    check = [result(Verdict.FAIL, side="low")]
    diagnosis = Recorded("requests averaged 4 KiB", error=BoardTimeout("host: no prompt after 120 s"))
    diagnose.after_verdict(item(), check, diagnosis)
    lines = check[0].facts.notes["diagnosis"]
    assert lines[0] == "requests averaged 4 KiB"
    assert lines[1] == "the diagnosis stopped: BoardTimeout: host: no prompt after 120 s"
    assert check[0].verdict is Verdict.FAIL


def test_the_diagnosis_gets_its_deadline_and_runs_under_the_command_bound():
    seen = {}

    def diagnosis(deadline: float, found: list[str]) -> None:
        from hil.lab.board import bound

        seen["left"] = deadline - time.monotonic()
        seen["limit"] = bound.limit(600)

    diagnose.after_verdict(item(seconds=30), [result(Verdict.FAIL, side="low")], diagnosis)
    assert 25 < seen["left"] <= 30
    assert seen["limit"][0] <= 30 and "--diagnose-s 30" in seen["limit"][1]


def test_unstable_outside_the_band_is_diagnosed_and_unstable_inside_it_is_not():
    outside, inside = [result(Verdict.UNSTABLE, side="low")], [result(Verdict.UNSTABLE)]
    diagnose.after_verdict(item(), outside, Recorded("found"))
    diagnose.after_verdict(item(), inside, Recorded("found"))
    assert outside[0].facts.notes["diagnosis"][0] == "found" and "diagnosis" not in inside[0].facts.notes


def test_a_fail_for_corrupted_data_at_a_rate_inside_the_band_is_not_diagnosed():
    corrupted = [result(Verdict.FAIL)]  # no side: the band passed the rate, the integrity check failed the data
    diagnosis = Recorded("never")
    diagnose.after_verdict(item(), corrupted, diagnosis)
    assert diagnosis.calls == 0
