"""hil.measure.system_resume's parser: its fuzz oracle (the figures read from the text by other means) and
invalidations (outputs that must never give a number)."""

from __future__ import annotations

import re
from typing import Any

from .edits import Edit, Oracle


def _oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    device = asked["device"]
    lines = [line.strip() for line in text.replace("\r", "\n").split("\n")]
    mine = [line for line in lines if f"] usb {device}: PM: usb_dev_resume+" in line and "returned " in line]
    words = mine[0].split()
    assert words[-5:-2] == ["returned", "0", "after"] and words[-1] == "usecs" and words[-2].isdigit()
    assert result.device == device
    assert result.device_ms == int(words[-2]) / 1000
    entry = next(line for line in lines if "PM: suspend entry (" in line)
    assert result.state == entry.split("PM: suspend entry (")[1].split(")")[0]
    phase = [line for line in lines if "] PM: resume of devices complete after " in line]
    if result.devices_ms is not None:
        assert result.devices_ms == float(phase[0].split(" after ")[1].split()[0])
        assert result.device_ms <= result.devices_ms + 1


def _device(asked: dict[str, Any]) -> str:
    return re.escape(asked["device"])


RESUME: dict[str, Edit] = {
    # The kernel refused to sleep: `echo mem` failed, whatever the log before it says.
    "refused": lambda text, asked: (text.replace("hil-system-resume-rc=0", "hil-system-resume-rc=1"), asked),
    # The device's resume callback failed.
    "failed": lambda text, asked: (
        re.sub(rf"(usb {_device(asked)}: PM: usb_dev_resume\S+ \[usbcore\] returned )0 ", r"\g<1>-110 ", text),
        asked,
    ),
    # Another sleep state than the one asked for.
    "other state": lambda text, asked: (text, {**asked, "state": "s2idle"}),
    # Another device than the one asked for: its lines are not in the log.
    "other device": lambda text, asked: (text, {**asked, "device": "3-9"}),
    # The log lost hil's mark (the ring buffer overflowed): the lines may be of another cycle.
    "no mark": lambda text, asked: (re.sub(r"^.*\] hil-system-resume-[0-9a-f]{8}\n", "", text, flags=re.M), asked),
    # A callback of 0 or 1 us: below what pm_print_times's microseconds can tell from none.
    **{
        f"after {us} usecs": lambda text, asked, us=us: (
            re.sub(
                rf"(usb {_device(asked)}: PM: usb_dev_resume\S+ \[usbcore\] returned 0 after )[0-9]+",
                rf"\g<1>{us}",
                text,
            ),
            asked,
        )
        for us in (0, 1)
    },
    # The device's line dated before the suspend entry: it is not of this cycle's resume.
    "device line before the suspend entry": lambda text, asked: (
        re.sub(
            rf"^\[ *[0-9.]+\](?= usb {_device(asked)}: PM: usb_dev_resume\S+ \[usbcore\] returned)",
            "[    0.000001]",
            text,
            flags=re.M,
        ),
        asked,
    ),
    # A second line for the device, dated inside the suspend (12 us): one cycle resumes a device once, so
    # either could be the figure.
    "a second device line inside the suspend": lambda text, asked: (
        re.sub(
            r"^((\[ *[0-9.]+\]) PM: suspend entry.*\n)",
            rf"\g<1>\g<2> usb {asked['device']}: PM: usb_dev_resume+0x0/0x10 [usbcore] returned 0 after 12 usecs\n",
            text,
            count=1,
            flags=re.M,
        ),
        asked,
    ),
    "two suspend entries": lambda text, asked: (
        re.sub(r"^(.*PM: suspend entry.*\n)", r"\1\1", text, flags=re.M),
        asked,
    ),
    # One device longer than every device's resume together: two cycles' lines mixed.
    "longer than the phase": lambda text, asked: (
        re.sub(r"(resume of devices complete after )[0-9.]+", r"\g<1>1.000", text),
        asked,
    ),
}

ORACLES: dict[str, Oracle] = {"hil.measure.system_resume.parse": _oracle}
INVALIDATIONS: dict[str, dict[str, Edit]] = {"hil.measure.system_resume.parse": RESUME}
