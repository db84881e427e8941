"""Runtime resume parser and command, on traces the virtual board's kernel wrote (tests/data/usb_resume,
captured by its capture_vlab.py). Variations (a resume that found the device active, one that failed,
one cut short) are built here from the captured trace and say so. The usbcore timing a case runs under
(timing_in_force), on a host that answers as the virtual board's kernel does, with and without seed 003's patch."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hil.errors import Unavailable
from hil.measure import usb_resume
from hil.measure.parsing import PARSERS
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "usb_resume"


def _capture(name: str) -> tuple[str, dict[str, str]]:
    source = dict(line.split(": ", 1) for line in (DATA / f"{name}.source").read_text().splitlines())
    return (DATA / f"{name}.txt").read_text(), source


def test_registered_with_its_captures():
    assert PARSERS["hil.measure.usb_resume.parse"].data == "usb_resume"


def test_the_captured_resume_runs_from_rpm_resume_to_its_return():
    text, source = _capture("vlab-bot-resume")
    assert source["exit"] == "0"
    resume = usb_resume.parse(text, **usb_resume.asked(source["command"]))
    # The trace's lines for 2-1: rpm_resume at 40.496358, its rpm_resume return (ret=0) at 40.571948; the
    # rpm_idle return in between is another call's.
    assert resume.device == "2-1"
    assert (resume.started_s, resume.returned_s) == (40.496358, 40.571948)
    assert resume.ms == pytest.approx(75.590)


def test_other_devices_in_the_trace_are_not_timed():
    text, _ = _capture("vlab-bot-resume")
    with pytest.raises(ParseError, match="no rpm_resume of 2-2"):
        usb_resume.parse(text, device="2-2")
    # usb2 (the root hub) was already active: its rpm_resume returned 1, nothing was resumed.
    with pytest.raises(ParseError, match="usb2 was already active"):
        usb_resume.parse(text, device="usb2")


def test_a_failed_resume_is_an_error_with_the_trace():
    # Variation: the captured trace with the device's return value changed to -EIO.
    text, _ = _capture("vlab-bot-resume")
    failed = text.replace(":2-1 ret=0", ":2-1 ret=-5")
    with pytest.raises(ParseError, match=r"failed to resume \(ret=-5\)") as raised:
        usb_resume.parse(failed, device="2-1")
    assert raised.value.raw_output == failed


def test_a_trace_cut_before_the_return_is_an_error():
    # Variation: the captured trace without the device's rpm_resume return line.
    text, _ = _capture("vlab-bot-resume")
    cut = "\n".join(line for line in text.splitlines() if not line.endswith(":2-1 ret=0"))
    with pytest.raises(ParseError, match="never returned"):
        usb_resume.parse(cut, device="2-1")


@pytest.mark.parametrize("name", ["vlab-bot-busy-after-boot", "vlab-bot-resume-after-boot", "vlab-uas-no-autosuspend"])
def test_a_device_that_never_suspended_gives_no_figure(name):
    text, source = _capture(name)
    assert source["exit"] == "4" and "did not runtime-suspend" in text
    with pytest.raises(ParseError, match="no rpm_resume"):
        usb_resume.parse(text, **usb_resume.asked(source["command"]))


def test_the_command_is_the_captured_one_and_quotes_the_path():
    _, source = _capture("vlab-bot-resume")
    assert usb_resume.command("/sys/bus/usb/devices/2-1", autosuspend_ms=100) == source["command"]
    odd = usb_resume.command("/sys/bus/usb/devices/1-1; reboot", autosuspend_ms=100)
    assert shlex.split(odd)[0] == "d=/sys/bus/usb/devices/1-1; reboot;"
    with pytest.raises(ValueError):
        usb_resume.command("/sys/bus/usb/devices/2-1", autosuspend_ms=-1)


def test_an_asynchronous_resume_times_the_queueing_and_is_refused():
    # Variation: the captured trace with the device's rpm_resume flagged RPM_ASYNC (0x01; 0x5 adds RPM_GET_PUT).
    text, _ = _capture("vlab-bot-resume")
    for flags in ("1", "5"):
        queued = text.replace("rpm_resume: 2-1 flags-0 ", f"rpm_resume: 2-1 flags-{flags} ")
        with pytest.raises(ParseError, match=f"asynchronous \\(flags-{flags}\\)"):
            usb_resume.parse(queued, device="2-1")


@pytest.mark.parametrize("returned", ["40.496358", "40.496359", "40.496360", "40.496482"])
def test_a_resume_shorter_than_a_microframe_is_refused(returned):
    # Variation: the device's return stamped 0, 1, 2 or 124 µs after its start: no USB resume is that short.
    text, _ = _capture("vlab-bot-resume")
    instant = text.replace(
        "40.571948: rpm_return_int: rpm_resume+0x2e8/0x830:2-1",
        f"{returned}: rpm_return_int: rpm_resume+0x2e8/0x830:2-1",
    )
    with pytest.raises(ParseError, match="less than the one microframe"):
        usb_resume.parse(instant, device="2-1")


def test_a_trace_that_lost_events_is_refused():
    # Variation: ftrace's mark of an overwritten ring buffer between the resume's start and its return.
    text, _ = _capture("vlab-bot-resume")
    lines = text.split("\n")
    lines.insert(len(lines) // 2, "CPU:0 [LOST 37 EVENTS]")
    with pytest.raises(ParseError, match="lost events"):
        usb_resume.parse("\n".join(lines), device="2-1")


# usbcore's parameters as the virtual board's kernel (Linux 6.1) lists them, from the facts of a vlab-usbdisk-bot run;
# it has no timing_minimum, which a kernel with seed 003's patch adds (the line `patched` appends: no such kernel
# runs here).
USBCORE = "".join(
    f"/sys/module/usbcore/parameters/{line}\n"
    for line in (
        "authorized_default:-1", "autosuspend:2", "blinkenlights:N", "initial_descriptor_timeout:5000", "nousb:N",
        "old_scheme_first:N", "usbfs_memory_mb:16", "usbfs_snoop:N", "usbfs_snoop_max:65536", "use_both_schemes:Y",
    )
)  # fmt: skip


@dataclass
class UsbcoreBoard:
    """A host whose usbcore lists `listing`, its timing_minimum `writable` or not; it keeps the commands it got."""

    listing: str
    writable: bool = True
    commands: list[str] = field(default_factory=list)
    label = "vlab-usbdisk-bot/host (vboard)"

    def run_status(self, command: str, **_: object) -> tuple[int, str]:
        self.commands.append(command)
        if command.startswith("grep -H . /sys/module/usbcore/parameters/"):
            return 0, self.listing
        return (0 if self.writable or not command.startswith("test -w") else 1), ""

    def run(self, command: str, **options: object) -> str:
        return self.run_status(command, **options)[1]


def patched(value: str) -> str:
    return USBCORE + f"{usb_resume.TIMING_MINIMUM}:{value}\n"


def board_enters(board: UsbcoreBoard, timing: str) -> None:
    with usb_resume.timing_in_force(board, timing):  # type: ignore[arg-type]
        pass


def test_the_kernels_delays_on_a_kernel_without_the_patch_read_usbcore_once_and_change_nothing():
    board = UsbcoreBoard(USBCORE)
    with usb_resume.timing_in_force(board, "default") as parameters:  # type: ignore[arg-type]
        assert parameters["autosuspend"] == "2" and len(parameters) == 10
    assert len(board.commands) == 1


def test_the_minima_on_a_kernel_without_the_patch_are_unavailable_naming_the_board():
    board = UsbcoreBoard(USBCORE)
    with pytest.raises(Unavailable, match=r"^vlab-usbdisk-bot/host \(vboard\): the kernel has no usbcore.timing_"):
        board_enters(board, "minimum")
    assert len(board.commands) == 1


def test_the_minima_are_in_force_for_the_case_and_the_kernels_value_put_back_after():
    board = UsbcoreBoard(patched("0"))
    with usb_resume.timing_in_force(board, "minimum") as parameters:  # type: ignore[arg-type]
        assert parameters["timing_minimum"] == "1"  # the facts say what the samples ran under
        assert board.commands[1:] == [
            f"test -w {usb_resume.TIMING_MINIMUM}",
            f"printf '%s\\n' 1 > {usb_resume.TIMING_MINIMUM}",
        ]
    assert board.commands[-1] == f"printf '%s\\n' 0 > {usb_resume.TIMING_MINIMUM}"
    assert sum(command.startswith("grep") for command in board.commands) == 1


@pytest.mark.parametrize(("value", "timing"), [("Y", "minimum"), ("0", "default")])
def test_a_timing_already_in_force_is_not_written(value, timing):
    board = UsbcoreBoard(patched(value), writable=False)
    board_enters(board, timing)
    assert len(board.commands) == 1


def test_a_read_only_timing_the_case_needs_is_unavailable_saying_where_to_set_it():
    board = UsbcoreBoard(patched("Y"), writable=False)
    with pytest.raises(Unavailable, match=r"\(vboard\): usbcore.timing_minimum is Y and read-only: set it on the"):
        board_enters(board, "default")
    assert board.commands[1:] == [f"test -w {usb_resume.TIMING_MINIMUM}"]  # nothing written
