"""Every run wrapper of hil.measure, given each exit status a board's shell can return with a real output.

A parser sees the text; the wrapper around it also sees the exit status of the command on the board. A
valid-looking output from a command that failed (fio's JSON after an I/O error, iperf3's document after the
`timeout` that ended it, dd's summary before a `conv=fsync` that failed, a resume trace then exit 4) must be
an error that keeps the output, never a number. Each wrapper is run on a role that answers with a real
capture (tests/data/<tool>, the command that made it in the .source file next to it):

- as captured, exit 0: a figure (so these tests can fail);
- the same output with the statuses a shell gives for a failure, a `timeout`, a signal or ssh's own error:
  a MeasurementError carrying the output;
- every capture that really exited non-zero: a MeasurementError, whatever its text says.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hil.measure import cpfile, dd, ddfile, fio, iperf3, netdev, pcie_bar, usb_resume, v4l2_fps
from hil.verdict.errors import MeasurementError

DATA = Path(__file__).resolve().parents[1] / "data"
FAILURE_STATUSES = [1, 2, 124, 130, 137, 143, 255]  # error, usage, timeout(1), SIGINT, SIGKILL, SIGTERM, ssh


@dataclass
class CapturedBoard:
    """A role whose shell answers every measured command with one capture and the given exit status."""

    status: int
    output: str
    label: str = "captured board"
    commands: list[str] = field(default_factory=list)

    def run_status(self, command: str, *, timeout: float = 60.0) -> tuple[int, str]:
        self.commands.append(command)
        return self.status, self.output

    def run(self, command: str, *, timeout: float = 60.0, check: bool = True) -> str:
        return ""  # the steps around a measurement (drop caches) have no output


@dataclass
class Capture:
    name: str
    command: str
    exit: int
    text: str


SKIPPED = {"fio": ("enghelp",)}  # not a run of the wrapper's tool: fio's engine list


def captures(tool: str) -> list[Capture]:
    """The tool's captured runs."""
    found = []
    for path in sorted((DATA / tool).glob("*.txt")):
        if any(part in path.stem for part in SKIPPED.get(tool, ())):
            continue
        source = dict(line.split(": ", 1) for line in path.with_suffix(".source").read_text().splitlines())
        found.append(Capture(path.stem, source["command"], int(source["exit"]), path.read_bytes().decode()))
    return found


def _args(command: str) -> dict[str, str]:
    return dict(arg.split("=", 1) for arg in shlex.split(command) if "=" in arg)


def _dd(board: CapturedBoard, command: str) -> object:
    return dd.run(board, command, expected_bytes=dd.asked(command)["expected_bytes"], timeout=60)  # type: ignore[arg-type]


def _ddfile(board: CapturedBoard, command: str) -> object:
    found = re.search(r" bs=(\S+) count=([0-9]+)", command)
    assert found, command
    total_mb = dd.block_bytes(found[1]) * int(found[2]) // 2**20
    return ddfile.write(board, "/mnt/file.bin", block_size=found[1], total_mb=total_mb)  # type: ignore[arg-type]


def _cpfile(board: CapturedBoard, command: str) -> object:
    found = re.search(r": expect ([0-9]+) bytes", command)
    assert found, command
    return cpfile.run(board, "/tmp/source.bin", "/mnt/copy.bin", expected_bytes=int(found[1]), timeout=60)  # type: ignore[arg-type]


def _fio(board: CapturedBoard, command: str) -> object:
    args = {key.lstrip("-"): value for key, value in _args(command).items()}
    job = fio.FioJob(args["rw"], args["bs"], iodepth=int(args["name"].split("_q")[1].split("_")[0]))
    return fio.run(
        board,  # type: ignore[arg-type]
        args["filename"],
        job,
        engine=args["ioengine"],
        size_mb=int(args["size"].rstrip("M")),
        runtime_s=float(args["runtime"]),
        ramp_s=float(args["ramp_time"]),
    )


@dataclass
class _Client:
    role: CapturedBoard

    def wrap(self, command: str) -> str:
        return command


def _iperf3(board: CapturedBoard, command: str) -> object:
    argv = shlex.split(command)
    argv = argv[argv.index("iperf3") :]
    duration = int(argv[argv.index("--time") + 1])
    reverse = "--reverse" in argv
    if "--udp" in argv:
        rate = float(argv[argv.index("--bitrate") + 1].rstrip("M"))
        return iperf3.udp(_Client(board), argv[2], rate_mbps=rate, duration_s=duration, reverse=reverse)
    return iperf3.tcp(_Client(board), argv[2], duration_s=duration, reverse=reverse)


def _pcie_bar(board: CapturedBoard, command: str) -> object:
    _, _, size, width, loops = shlex.split(command)
    return pcie_bar.run(board, "0000:01:00.0", 2, size=int(size, 0), width=int(width), loops=int(loops))  # type: ignore[arg-type]


def _usb_resume(board: CapturedBoard, command: str) -> object:
    device = re.search(r"d=(/sys/bus/usb/devices/\S+);", command)
    assert device, command
    return usb_resume.run(board, device[1], autosuspend_ms=100)  # type: ignore[arg-type]


def _v4l2_fps(board: CapturedBoard, command: str) -> object:
    _, device, fmt, width, height, frames, timeout_s, *counter = shlex.split(command)
    return v4l2_fps.run(
        board,  # type: ignore[arg-type]
        device,
        fmt,
        int(width),
        int(height),
        frames=int(frames),
        frame_timeout_s=int(timeout_s),
        counter=bool(counter),
    )


def _netdev(board: CapturedBoard, command: str) -> object:
    ifname = command.split("/sys/class/net/")[1].split("/")[0]
    return netdev.read(board, ifname)  # type: ignore[arg-type]


# wrapper name -> (captures it runs on, how it is called for a capture's command)
WRAPPERS: dict[str, tuple[str, Callable[[CapturedBoard, str], Any]]] = {
    "dd.run": ("dd", _dd),
    "ddfile.write": ("dd-sync", _ddfile),
    "cpfile.run": ("cp", _cpfile),
    "fio.run": ("fio", _fio),
    "iperf3.tcp/udp": ("iperf3", _iperf3),
    "pcie_bar.run": ("pcie_bar", _pcie_bar),
    "usb_resume.run": ("usb_resume", _usb_resume),
    "v4l2_fps.run": ("v4l2_fps", _v4l2_fps),
    "netdev.read": ("netdev", _netdev),
}


def _cases(exit_zero: bool) -> list[Any]:
    cases = []
    for wrapper, (tool, _) in WRAPPERS.items():
        for capture in captures(tool):
            if (capture.exit == 0) == exit_zero:
                cases.append(pytest.param(wrapper, capture, id=f"{wrapper}-{capture.name}"))
    return cases


def _valid(wrapper: str, capture: Capture) -> object | None:
    """The wrapper's result for the capture as captured, or None when hil refuses the output itself."""
    try:
        return WRAPPERS[wrapper][1](CapturedBoard(0, capture.text), capture.command)
    except MeasurementError:
        return None


def test_every_wrapper_has_a_capture_it_measures():
    for wrapper, (tool, _) in WRAPPERS.items():
        measured = [c for c in captures(tool) if c.exit == 0 and _valid(wrapper, c) is not None]
        assert measured, f"{wrapper}: no capture of {tool} gives a figure, so nothing here could fail"


@pytest.mark.parametrize(("wrapper", "capture"), _cases(exit_zero=True))
@pytest.mark.parametrize("status", FAILURE_STATUSES)
def test_a_failed_exit_status_is_an_error_whatever_the_output(wrapper, capture, status):
    call = WRAPPERS[wrapper][1]
    with pytest.raises(MeasurementError) as caught:
        call(CapturedBoard(status, capture.text), capture.command)
    assert caught.value.raw_output == capture.text


@pytest.mark.parametrize(("wrapper", "capture"), _cases(exit_zero=False))
def test_a_capture_that_really_failed_is_an_error(wrapper, capture):
    call, board = WRAPPERS[wrapper][1], CapturedBoard(capture.exit, capture.text)
    with pytest.raises((MeasurementError, ValueError)) as caught:
        call(board, capture.command)
    if isinstance(caught.value, ValueError):  # a request hil refuses to send (1 frame, a 16-bit access)
        assert board.commands == []
    elif len(board.commands) == 2:  # usb_resume.run asks a device that did not suspend once more: both answers
        assert caught.value.raw_output.startswith(capture.text) and caught.value.raw_output.endswith(capture.text)
    else:
        assert caught.value.raw_output == capture.text
