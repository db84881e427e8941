"""hil.measure.usb_resume's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

import re
from typing import Any

from hil.measure.parsing import without_kernel_messages

from .edits import (
    Edit,
    Oracle,
)


def _resume_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    device = asked["device"]
    lines = [line.strip() for line in without_kernel_messages(text).replace("\r", "\n").split("\n")]
    lines = [line for line in lines if line.isascii() and line.isprintable()]  # the kernel prints no other

    def microseconds(line: str) -> bool:  # ftrace prints seconds with exactly six decimals
        words = line.split(": rpm_")[0].split()
        seconds, dot, fraction = (words[-1] if words else "").partition(".")
        return bool(dot) and seconds.isdigit() and fraction.isdigit() and len(fraction) == 6

    lines = [line for line in lines if ": rpm_" in line and microseconds(line)]
    start = next(line for line in lines if f": rpm_resume: {device} flags-" in line)
    end = next(
        line for line in lines[lines.index(start) :] if line.endswith(f":{device} ret=0") and "rpm_resume+" in line
    )
    started = float(start.split(": rpm_resume: ")[0].split()[-1])
    returned = float(end.split(": rpm_return_int: ")[0].split()[-1])
    assert (result.device, result.started_s, result.returned_s) == (device, started, returned)
    assert 0 <= result.ms == (returned - started) * 1000


def _returned_after(us: int) -> Edit:
    """The device's return stamped `us` microseconds after its start."""

    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        device = re.escape(asked["device"])
        start = re.search(rf" ([0-9]+)\.([0-9]{{6}}): rpm_resume: {device} flags-", text)
        assert start is not None
        stamp = int(start[1] + start[2]) + us
        returned = f" {stamp // 10**6}.{stamp % 10**6:06d}: rpm_return_int: rpm_resume+"
        pattern = rf" [0-9]+\.[0-9]{{6}}: rpm_return_int: rpm_resume\+(?=0x[0-9a-f]+/0x[0-9a-f]+:{device} ret=0)"
        return re.sub(pattern, returned, text), asked

    return edit


def _lost_inside(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """ftrace's mark of overwritten events, just after the device's rpm_resume."""
    device = re.escape(asked["device"])
    return re.sub(rf"(: rpm_resume: {device} flags-.*\n)", r"\1CPU:0 [LOST 37 EVENTS]\n", text, count=1), asked


RESUME = {
    "a resume of 0 us": _returned_after(0),
    "a resume of 1 us": _returned_after(1),
    "a resume of 2 us": _returned_after(2),
    "a resume of 124 us": _returned_after(124),
    "lost events inside the resume": _lost_inside,
    "asynchronous": lambda text, asked: (
        re.sub(rf"(rpm_resume: {re.escape(asked['device'])} flags-)0 ", r"\g<1>1 ", text, count=1),
        asked,
    ),
    "failed": lambda text, asked: (
        re.sub(rf"(:{re.escape(asked['device'])} ret=)0$", r"\g<1>-5", text, flags=re.M),
        asked,
    ),
}


ORACLES: dict[str, Oracle] = {
    "hil.measure.usb_resume.parse": _resume_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.usb_resume.parse": RESUME,
}
