"""Exit statuses a pipeline can act on: a failed gate, a lab that could not measure, a bad input, an abort.

pytest says 1 for every failed or erroring test and 2 for a collection error as for Ctrl-C. A release
pipeline must tell "the board is too slow" (block the release) from "the lab could not measure" (fix the
lab, measure again) and from "someone aborted" (no verdict at all), so the report plugin narrows
pytest's status once the run is over. Plain module: no pytest.
"""

from __future__ import annotations

from enum import IntEnum


class HilExit(IntEnum):
    OK = 0  # every test passed (MARGINAL included; it warns)
    GATE_FAILED = 1  # at least one FAIL, UNSTABLE or REGRESSION (or another test failure)
    INTERRUPTED = 2  # Ctrl-C, SIGTERM, SIGHUP: results.json holds what finished, no verdict on the rest
    INTERNAL_ERROR = 3  # pytest's own: a bug in hil or a plugin
    USAGE_ERROR = 4  # bad inventory, unknown --board, bad options, a test module that does not import
    NO_TESTS = 5  # pytest's own: the selection matched no test
    LAB_ERROR = 6  # no gate failed, but a measurement error or a lab fault left a test without a verdict


def pipeline_exit_status(
    status: int, *, gate_failures: int, errors: int, collection_aborted: bool, interrupted: bool = False
) -> int:
    """Narrow pytest's exit `status` (1 or 2) with what the run saw; other statuses pass through.

    `errors`: measurement and setup/teardown errors; `collection_aborted`: pytest's status 2 came from collection
    errors, no interruption; `interrupted`: a SIGTERM or SIGHUP ended the run, even where its KeyboardInterrupt was
    lost on the way (labgrid's step bookkeeping turned one into an AssertionError: a CI run ended 1, 2026-11-30).
    """
    if interrupted and status in (HilExit.OK, HilExit.GATE_FAILED, HilExit.INTERRUPTED, HilExit.LAB_ERROR):
        return HilExit.INTERRUPTED
    if status == HilExit.INTERRUPTED and collection_aborted:
        return HilExit.USAGE_ERROR
    if status == HilExit.GATE_FAILED and gate_failures == 0 and errors > 0:
        return HilExit.LAB_ERROR
    return status
