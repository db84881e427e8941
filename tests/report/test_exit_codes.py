"""The exit status a pipeline acts on, from real pytest runs on hand-made results (nothing measured)."""

import json

import pytest

from hil.records.exitcodes import HilExit

VERDICT_TEST = """
import pytest
from hil.report.collect import attach
from hil.report.outcome import raise_for_verdict
from hil.report.testing import example_result
from hil.verdict.result import Verdict


@pytest.mark.parametrize("verdict", {verdicts!r})
def test_metric(request, verdict):
    result = example_result(Verdict(verdict), params={{"bs": "1M", "case": verdict.lower()}})
    attach(request.node, result)
    raise_for_verdict(result)
"""


def _verdicts(inner, *verdicts):
    inner.pytester.makepyfile(test_gate=VERDICT_TEST.format(verdicts=list(verdicts)))
    return inner().ret


@pytest.mark.parametrize(
    ("verdicts", "status"),
    [
        (["PASS", "MARGINAL", "INFO"], HilExit.OK),
        (["PASS", "FAIL"], HilExit.GATE_FAILED),
        (["UNSTABLE"], HilExit.GATE_FAILED),
        (["REGRESSION"], HilExit.GATE_FAILED),
        (["FAIL", "ERROR"], HilExit.GATE_FAILED),  # a failed gate outranks a lab fault
        (["PASS", "ERROR"], HilExit.LAB_ERROR),
    ],
)
def test_verdicts_give_status(inner, verdicts, status):
    assert _verdicts(inner, *verdicts) == status


def test_lab_fault_in_setup_is_lab_error(inner):
    inner.pytester.makepyfile(
        test_boot="""
        import pytest

        @pytest.fixture
        def board():
            raise TimeoutError("board did not reach its login prompt")

        def test_read(board):
            pass
        """
    )
    assert inner().ret == HilExit.LAB_ERROR


def test_keyboard_interrupt_is_interrupted(inner):
    inner.pytester.makepyfile(test_stop="def test_stop():\n    raise KeyboardInterrupt\n")
    assert inner(subprocess=True).ret == HilExit.INTERRUPTED  # in-process, pytester re-raises it


def test_collection_error_is_usage_error(inner):
    inner.pytester.makepyfile(test_broken="import no_such_module_here\n")
    assert inner().ret == HilExit.USAGE_ERROR


# With hil's own plugin (inventory, signal handlers): in a subprocess, as labgrid's plugin allows one session.
HIL_ARGS = ("-p", "hil.plugin", "-p", "hil_report")


def test_sigterm_is_interrupted(pytester, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(
        test_abort="""
        import os, signal

        def test_abort():
            os.kill(os.getpid(), signal.SIGTERM)
        """
    )
    result = pytester.runpytest_subprocess(*HIL_ARGS, timeout=60)
    assert result.ret == HilExit.INTERRUPTED
    run = json.loads((pytester.path / "reports" / "results.json").read_text())["run"]
    assert (run["exit_status"], run["aborted_by"]) == (HilExit.INTERRUPTED, "SIGTERM")


def test_a_sigterm_whose_interrupt_a_library_lost_still_ends_the_run_interrupted(pytester, monkeypatch):
    """labgrid's step bookkeeping once turned the KeyboardInterrupt of a Jenkins abort into an AssertionError:
    the test failed, the run went on and ended 1 (a CI run, 2026-11-30). The abort still ends it, with 2."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(
        test_abort="""
        import os, signal

        def test_aborted_inside_a_library():
            try:
                os.kill(os.getpid(), signal.SIGTERM)
            except KeyboardInterrupt:
                raise AssertionError("a step stack out of order") from None

        def test_never_started():
            pass
        """
    )
    result = pytester.runpytest_subprocess(*HIL_ARGS, timeout=60)
    assert result.ret == HilExit.INTERRUPTED
    result.stdout.fnmatch_lines(["*SIGTERM received*"])
    assert "test_never_started PASSED" not in result.stdout.str() and "1 failed" in result.stdout.str()
    run = json.loads((pytester.path / "reports" / "results.json").read_text())["run"]
    assert (run["exit_status"], run["aborted_by"]) == (HilExit.INTERRUPTED, "SIGTERM")


def test_bad_inventory_is_usage_error(pytester, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makefile(".yaml", boards="pairs:\n  p:\n    env: env.yaml\n    roles: {}\n    bogus: 1\n")
    pytester.makepyfile(test_any="def test_any():\n    pass\n")
    result = pytester.runpytest_subprocess(*HIL_ARGS, "--boards=boards.yaml", timeout=60)
    assert result.ret == HilExit.USAGE_ERROR
    result.stderr.fnmatch_lines(["*invalid board inventory: *boards.yaml*"])
