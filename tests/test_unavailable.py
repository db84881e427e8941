"""hil.errors.Unavailable through the plugin: a board that lacks what a case asks of it skips the case with the
board's own words, where any other error of hil's is the case's ERROR (hil.plugin.pytest_runtest_call)."""

from __future__ import annotations

import pytest

from hil.errors import LabError, Unavailable
from hil.plugin import pytest_runtest_call
from hil.report.outcome import MeasurementErrorOutcome

LACKS = "vlab-usbdisk-bot/host (vboard): the kernel has no usbcore.timing_minimum"


def _call_raising(error: Exception) -> None:
    """The plugin's wrapper around a test's call, the call raising `error`."""
    wrapper = pytest_runtest_call(item=None)
    next(wrapper)
    wrapper.throw(error)


def test_a_board_that_lacks_what_the_case_asks_skips_it_naming_the_board_and_what():
    with pytest.raises(pytest.skip.Exception) as skipped:
        _call_raising(Unavailable(LACKS))
    assert skipped.value.msg == LACKS


def test_a_board_that_fails_is_an_error_not_a_skip():
    with pytest.raises(MeasurementErrorOutcome, match="LabError: vlab-hs/host"):
        _call_raising(LabError("vlab-hs/host (vboard): `umount /mnt/hil-msc` exited 1"))
