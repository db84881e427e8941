"""hil.verdict.final: every rule between the band's verdict and the final one, without a board or pytest fixture."""

from __future__ import annotations

import pytest

from hil.report.testing import example_result
from hil.verdict.final import Found, Integrity, OperatingPoint, PcLoad, final_verdict
from hil.verdict.result import BaselineComparison, Verdict

BUSY = PcLoad("median 60%, max 70% of the lab PC's 2 CPUs busy outside hil", busy=True, bound=0.25)
QUIET = PcLoad("median 3%, max 5% of the lab PC's 2 CPUs busy outside hil", busy=False, bound=0.25)

MOVED = OperatingPoint("rc: moved 1 time(s) over 5 samples", moves=("sample 2: cpu1 went offline",))
HELD = OperatingPoint("rc: clock 1800 MHz, held over 5 samples")


def regression(yes: bool = True) -> BaselineComparison:
    return BaselineComparison("run-1", 40.0, 10, -0.2, 0.001, yes, reason=f"{'' if yes else 'no '}regression vs run-1")


def test_nothing_to_add_keeps_the_band_verdict_and_does_not_touch_the_input():
    result = example_result(Verdict.PASS)
    final = final_verdict(result, pc_load=QUIET)
    assert final.verdict is Verdict.PASS and final.facts.pc_load == QUIET.line and final.facts.pc_busy is None
    assert result.facts.pc_load is None  # a new record: the decided one stays as decided


@pytest.mark.parametrize("verdict", [Verdict.PASS, Verdict.MARGINAL, Verdict.FAIL])
def test_rule_1_a_busy_pc_makes_a_band_verdict_unstable(verdict):
    final = final_verdict(example_result(verdict, reason="band says so"), pc_load=BUSY)
    assert final.verdict is Verdict.UNSTABLE
    assert final.reason.startswith("unstable: the lab PC was busy") and "pc_load_max 25%" in final.reason
    assert final.reason.endswith("band says so") and final.facts.pc_busy == BUSY.note


@pytest.mark.parametrize("verdict", [Verdict.ERROR, Verdict.UNSTABLE, Verdict.INFO])
def test_rule_1_leaves_errors_unstable_and_informative_results_alone(verdict):
    assert final_verdict(example_result(verdict), pc_load=BUSY).verdict is verdict


def test_rule_1_without_a_bound_only_records_the_load():
    final = final_verdict(example_result(Verdict.FAIL), pc_load=PcLoad(BUSY.line, busy=True, bound=None))
    assert final.verdict is Verdict.FAIL and final.facts.pc_busy == BUSY.note


def test_rule_1_companions_of_a_check_share_its_load():
    """A jitter companion has no load of its own (its samples carry none): given its check's, it is UNSTABLE too."""
    jitter = example_result(Verdict.FAIL, metric="usb.net.udp.jitter", unit="ms")
    assert all(sample.observed.pc_load is None for sample in jitter.samples)
    assert final_verdict(jitter, pc_load=BUSY).verdict is Verdict.UNSTABLE


def test_rule_2_a_regression_turns_a_pass_into_regression():
    final = final_verdict(example_result(Verdict.PASS), comparison=regression())
    assert final.verdict is Verdict.REGRESSION and final.baseline.regression


def test_rule_2_no_regression_attaches_the_comparison_only():
    final = final_verdict(example_result(Verdict.PASS), comparison=regression(False))
    assert final.verdict is Verdict.PASS and final.baseline is not None


def test_rule_2_after_rule_1_an_unstable_result_names_its_regression():
    final = final_verdict(example_result(Verdict.PASS), pc_load=BUSY, comparison=regression())
    assert final.verdict is Verdict.UNSTABLE and "regression vs run-1" in final.reason


def test_rule_3_corrupted_data_fails_whatever_the_rate():
    corrupted = Integrity("byte 12 differs", Found.CORRUPTED, "cmp output")
    final = final_verdict(example_result(Verdict.PASS, reason="in band"), integrity=corrupted)
    assert final.verdict is Verdict.FAIL and final.reason == "data corrupted: byte 12 differs; the rate alone: in band"
    assert final.error_output == "cmp output" and final.facts.integrity == "CORRUPTED: byte 12 differs"


def test_rule_3_an_unverifiable_transfer_is_an_error_over_a_regression():
    final = final_verdict(
        example_result(Verdict.PASS), comparison=regression(), integrity=Integrity("gone", Found.NOT_VERIFIED)
    )
    assert final.verdict is Verdict.ERROR and final.reason == "integrity not verified: gone"


def test_rule_3_intact_data_or_a_worse_verdict_is_kept():
    intact = final_verdict(example_result(Verdict.MARGINAL), integrity=Integrity("4 MiB compared"))
    assert intact.verdict is Verdict.MARGINAL and intact.facts.integrity == "4 MiB compared"
    error = final_verdict(example_result(Verdict.ERROR, reason="hung"), integrity=Integrity("x", Found.CORRUPTED))
    assert error.verdict is Verdict.ERROR and error.reason == "hung"


@pytest.mark.parametrize("verdict", [Verdict.PASS, Verdict.MARGINAL, Verdict.FAIL])
def test_rule_1_a_board_off_its_operating_point_is_unstable_naming_what_moved(verdict):
    final = final_verdict(example_result(verdict, reason="band says so"), operating_point=MOVED)
    assert final.verdict is Verdict.UNSTABLE
    assert final.reason == "unstable: the board left its operating point (sample 2: cpu1 went offline); band says so"
    assert final.facts.operating_point == MOVED.line and final.facts.operating_point_moved == MOVED.note


def test_rule_1_an_operating_point_that_held_is_recorded_and_changes_nothing():
    final = final_verdict(example_result(Verdict.PASS), operating_point=HELD)
    assert final.verdict is Verdict.PASS and final.facts.operating_point == HELD.line
    assert final.facts.operating_point_moved is None
    assert final_verdict(example_result(Verdict.ERROR), operating_point=MOVED).verdict is Verdict.ERROR
