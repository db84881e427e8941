"""One outcome per test, every test that ran counted (hil.report.tally)."""

from hil.report.tally import OutcomeTally, counts_text, phase_outcome


def _tally(*reports):
    tally = OutcomeTally()
    for nodeid, when, outcome, *flags in reports:
        tally.add(
            nodeid, phase_outcome(when, outcome, measurement_error="measurement" in flags, xfail="xfail" in flags)
        )
    return tally.counts()


def test_a_pass_a_fail_and_a_measurement_error_are_three_tests_that_ran():
    counts = _tally(
        ("t::a", "setup", "passed"), ("t::a", "call", "passed"), ("t::a", "teardown", "passed"),
        ("t::b", "setup", "passed"), ("t::b", "call", "failed"), ("t::b", "teardown", "passed"),
        ("t::c", "setup", "passed"), ("t::c", "call", "failed", "measurement"), ("t::c", "teardown", "passed"),
    )  # fmt: skip
    assert counts == {"ran": 3, "failed": 1, "error": 1, "passed": 1}
    assert counts_text(counts) == "3 tests ran: 1 passed, 1 failed, 1 error"


def test_a_setup_error_ran_and_a_skip_did_not():
    counts = _tally(("t::boot", "setup", "failed"), ("t::skip", "setup", "skipped"), ("t::late", "call", "skipped"))
    assert counts == {"ran": 1, "error": 1, "skipped": 2}
    assert counts_text(counts) == "1 test ran: 1 error; 2 skipped"


def test_a_failure_then_a_teardown_error_is_one_failed_test():
    counts = _tally(("t::a", "call", "failed"), ("t::a", "teardown", "failed"))
    assert counts == {"ran": 1, "failed": 1}


def test_a_pass_then_a_teardown_error_is_an_error():
    assert _tally(("t::a", "call", "passed"), ("t::a", "teardown", "failed")) == {"ran": 1, "error": 1}


def test_xfail_and_xpass_ran():
    counts = _tally(("t::a", "call", "skipped", "xfail"), ("t::b", "call", "passed", "xfail"))
    assert counts == {"ran": 2, "xpassed": 1, "xfailed": 1}
