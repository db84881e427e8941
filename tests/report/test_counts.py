"""Every test that ran is counted, ERROR included: pytest-html's run count, hil's summaries, results.json.

The issue this guards: a run of 3 tests (PASS, FAIL, ERROR) whose HTML page said "2 tests took ...".
"""

import json
import re

import pytest

from hil import pipeline

TESTS = """
from hil.report.collect import attach
from hil.report.outcome import raise_for_verdict
from hil.report.testing import example_result
from hil.verdict.result import Verdict


def _measure(request, verdict, bs):
    result = example_result(Verdict(verdict), params={"bs": bs}, values=[] if verdict == "ERROR" else [41.0, 42.0])
    attach(request.node, result)
    raise_for_verdict(result)


def test_pass(request):
    _measure(request, "PASS", "64K")


def test_fail(request):
    _measure(request, "FAIL", "512K")


def test_measurement_error(request):
    _measure(request, "ERROR", "1M")
"""

BOARD_DID_NOT_BOOT = """
import pytest

@pytest.fixture
def board():
    raise RuntimeError("board did not boot")

def test_needs_a_board(board):
    pass
"""

REPORT_ARGS = ("--html=reports/report.html", "--self-contained-html", "--junitxml=reports/junit.xml")
WORKERS = pytest.mark.parametrize("workers", [[], ["-p", "xdist", "-n", "2"]], ids=["in-process", "xdist"])


@WORKERS
def test_a_pass_a_fail_and_an_error_are_three_tests_everywhere(inner, workers):
    inner.pytester.makepyfile(test_three=TESTS)
    result = inner(*REPORT_ARGS, *workers, subprocess=bool(workers))
    result.assert_outcomes(passed=1, failed=1, errors=1)
    result.stdout.fnmatch_lines(["3 tests ran: 1 passed, 1 failed, 1 error; 3 metrics: 1 PASS, 1 FAIL, 1 ERROR"])

    html = (inner.path / "reports" / "report.html").read_text()
    assert re.search(r'<p class="run-count">3 tests took [^<]*</p>', html), "pytest-html's count left the ERROR out"
    for span in ('<span class="passed">1 Passed', '<span class="failed">1 Failed', '<span class="error">1 Errors'):
        assert span in html
    assert '<p id="hil-test-counts">3 tests ran: 1 passed, 1 failed, 1 error</p>' in html

    run = json.loads((inner.path / "reports" / "results.json").read_text())["run"]
    assert run["tests"] == {"ran": 3, "passed": 1, "failed": 1, "error": 1}
    assert pipeline.summary(inner.path / "reports", 1, "b").endswith("; 3 tests ran: 1 passed, 1 failed, 1 error")


def test_a_test_that_errored_before_measuring_is_counted_though_it_has_no_metric(inner):
    inner.pytester.makepyfile(test_three=TESTS, test_boot=BOARD_DID_NOT_BOOT)
    result = inner(*REPORT_ARGS, "-k", "pass or needs_a_board")
    result.assert_outcomes(passed=1, errors=1, deselected=2)
    result.stdout.fnmatch_lines(["2 tests ran: 1 passed, 1 error; 1 metrics: 1 PASS"])
    assert '<p class="run-count">2 tests took ' in (inner.path / "reports" / "report.html").read_text()
    run = json.loads((inner.path / "reports" / "results.json").read_text())["run"]
    assert run["tests"] == {"ran": 2, "passed": 1, "error": 1}
