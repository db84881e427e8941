"""Regenerate the system resume logs in this folder: `.venv/bin/python tests/data/system_resume/capture_vlab.py`.

Boots the virtual board (hil/vlab/env.yaml), loads its xHCI driver, and runs the command
hil.measure.system_resume builds: the board suspends to RAM (deep) and its RTC wakes it after 3 s. Once for
the Bulk-Only disk, once for the UAS disk, and once for a port with nothing on it (2-9: the device asked
for is not on the bus: the command says so and exits 3 before the board sleeps). Writes NAME.txt (the
console output as the shell driver returns it) and NAME.source beside this file.
"""

from __future__ import annotations

import time
from pathlib import Path

from hil.lab.board.role import Role
from hil.lab.usb_host import usbhost
from hil.measure import system_resume
from hil.vlab.board import booted

HERE = Path(__file__).resolve().parent
CASES = {"vlab-bot-deep": "hil-vlab-bot", "vlab-uas-deep": "hil-vlab-uas", "vlab-no-device-deep": None}


def capture(role: Role, name: str, command: str, kernel: str) -> None:
    exitcode, output = role.run_status(command, timeout=180)
    (HERE / f"{name}.txt").write_text(output + "\n")
    (HERE / f"{name}.source").write_text(
        f"command: {command}\ntool: the kernel's PM log (pm_print_times, pm_debug_messages), the RTC's wakealarm, "
        f"/sys/power/state\nexit: {exitcode}\n"
        f"captured: {time.strftime('%Y-%m-%d', time.gmtime())} on the virtual board (hil/vlab, kernel {kernel}, "
        "QEMU q35 under TCG, qemu-xhci with usb-storage and usb-uas disks), via its serial console\n"
    )


def main() -> None:
    with booted("host") as role:
        role.run("modprobe xhci-pci", timeout=60)
        kernel = role.run("uname -r").strip()
        for name, serial in CASES.items():
            sysfs = usbhost.wait_for_device(role, serial).sysfs if serial else "/sys/bus/usb/devices/2-9"
            capture(role, name, system_resume.command(sysfs, state="deep", wake_s=3), kernel)


if __name__ == "__main__":
    main()
