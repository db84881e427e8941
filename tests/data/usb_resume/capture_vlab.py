"""Regenerate the resume traces in this folder: `.venv/bin/python tests/data/usb_resume/capture_vlab.py`.

Boots the virtual board (hil/vlab/env.yaml), loads its xHCI driver, and runs the command
hil.measure.usb_resume builds on the Bulk-Only disk (which runtime-suspends) and on the UAS disk (whose
driver does not support autosuspend: the command exits 4 with the subtree's runtime status). Writes
NAME.txt (the console output as the shell driver returns it) and NAME.source beside this file.
"""

from __future__ import annotations

import time
from pathlib import Path

from hil.lab.board.role import Role
from hil.lab.usb_host import usbhost
from hil.measure import usb_resume
from hil.vlab.board import booted

HERE = Path(__file__).resolve().parent
# The first run right after boot meets a disk whose SCSI side may still be busy. vlab-bot-busy-after-boot
# is such a run, captured when the command waited 10 s for the suspend (it exits 4 and prints every
# runtime status); the command now waits 30 s. The second run on the same disk resumes it.
CASES = {
    "vlab-bot-resume-after-boot": "hil-vlab-bot",
    "vlab-bot-resume": "hil-vlab-bot",
    "vlab-uas-no-autosuspend": "hil-vlab-uas",
}


def capture(role: Role, name: str, command: str, kernel: str) -> None:
    exitcode, output = role.run_status(command + " 2>&1", timeout=120)
    (HERE / f"{name}.txt").write_text(output + "\n")
    (HERE / f"{name}.source").write_text(
        f"command: {command}\ntool: tracefs rpm events (rpm_resume, rpm_return_int)\nexit: {exitcode}\n"
        f"captured: {time.strftime('%Y-%m-%d', time.gmtime())} on the virtual board (hil/vlab, kernel {kernel}, "
        "QEMU qemu-xhci with usb-storage and usb-uas disks), via its serial console\n"
    )


def main() -> None:
    with booted("host") as role:
        role.run("modprobe xhci-pci", timeout=60)
        kernel = role.run("uname -r").strip()
        for name, serial in CASES.items():
            device = usbhost.wait_for_device(role, serial)
            capture(role, name, usb_resume.command(device.sysfs, autosuspend_ms=100), kernel)


if __name__ == "__main__":
    main()
