"""hil.measure.system_resume's parser and command, on the virtual board's real logs (tests/data/system_resume)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.measure import system_resume
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "system_resume"


def _capture(name: str) -> str:
    return (DATA / f"{name}.txt").read_text()


def test_the_device_s_own_resume_callback_is_the_figure():
    # QEMU's xHCI loses its state in S3: the disk is reset, not resumed (the log says so), in 573 ms of the
    # 815 ms every device took.
    found = system_resume.parse(_capture("vlab-bot-deep"), device="2-1", state="deep")
    assert found.device_ms == pytest.approx(573.164)
    assert found.devices_ms == pytest.approx(815.207)
    assert found.slept_s == pytest.approx(2.451)
    assert (found.state, found.reset) == ("deep", True)


def test_the_other_disk_of_the_same_cycle_is_told_apart():
    # The two disks resume one after the other on the root hub: the one reset second takes longer.
    found = system_resume.parse(_capture("vlab-uas-deep"), device="2-2", state="deep")
    assert found.device_ms == pytest.approx(603.168)
    assert found.devices_ms == pytest.approx(830.859)
    assert system_resume.parse(_capture("vlab-uas-deep"), device="2-1", state="deep").device_ms == pytest.approx(
        396.748
    )


def test_a_device_that_is_not_there_never_sleeps_the_board():
    with pytest.raises(ParseError, match="no exit status of the sleep") as caught:
        system_resume.parse(_capture("vlab-no-device-deep"), device="2-9", state="deep")
    assert "no USB device at /sys/bus/usb/devices/2-9" in caught.value.raw_output


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda t: t.replace("rc=0", "rc=1"), "the kernel refused to sleep"),
        (
            lambda t: t.replace(
                "2-1: PM: usb_dev_resume+0x0/0x10 [usbcore] returned 0",
                "2-1: PM: usb_dev_resume+0x0/0x10 [usbcore] returned -110",
            ),
            "failed to resume",
        ),
        (lambda t: "\n".join(line for line in t.split("\n") if "] hil-system-resume-" not in line), "overflowed"),
        (lambda t: t.replace("(deep)", "(s2idle)"), "slept in s2idle, deep was asked"),
        (lambda t: t.replace("after 815.207 msecs", "after 10.000 msecs"), "not of one cycle"),
        # A console line cut into the phase's line: read whole or not at all, never skipped.
        (
            lambda t: t.replace("after 815.207 msecs", "after 81[   12.000000] random: crng init done\n5.207 msecs"),
            "a garbled devices resume line",
        ),
    ],
    ids=["refused", "callback failed", "mark lost", "other state", "longer than the phase", "garbled"],
)
def test_a_log_that_is_no_measurement_of_the_cycle_asked_is_an_error(edit, problem):
    with pytest.raises(ParseError, match=problem):
        system_resume.parse(edit(_capture("vlab-bot-deep")), device="2-1", state="deep")


def test_the_command_quotes_the_device_and_refuses_bad_settings():
    line = system_resume.command("/sys/bus/usb/devices/2-1", state="s2idle", wake_s=5)
    assert "d=/sys/bus/usb/devices/2-1; dev=2-1; state=s2idle;" in line and 'echo +5 > "$r/wakealarm"' in line
    assert system_resume.asked(line) == {"device": "2-1", "state": "s2idle"}
    assert "d='/sys/bus/usb/devices/it'\"'\"'s'" in system_resume.command("/sys/bus/usb/devices/it's", state="deep",
                                                                          wake_s=3)  # fmt: skip
    with pytest.raises(ValueError, match="sleep state 'mem'"):
        system_resume.command("/sys/bus/usb/devices/2-1", state="mem", wake_s=3)
    with pytest.raises(ValueError, match=r"wake_s must be 2\.\.600"):
        system_resume.command("/sys/bus/usb/devices/2-1", state="deep", wake_s=1)
