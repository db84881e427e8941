"""Regenerate the config-space dumps in this folder: `.venv/bin/python tests/data/pcie_config/capture_vlab.py`.

Boots the virtual board (hil/vlab/env.yaml) and reads, with the command hil.lab.pcie.payload runs, the config
space of its NVMe controller (a PCIe endpoint behind a root port), of that root port, and of the ivshmem
device (conventional PCI: no PCIe capability). Writes NAME.txt (od's output as the shell driver returns it)
and NAME.source beside this file.
"""

from __future__ import annotations

import time
from pathlib import Path

from hil.lab.board import shell
from hil.vlab.board import booted

HERE = Path(__file__).resolve().parent
CASES = {"vlab-nvme-endpoint": "0000:01:00.0", "vlab-root-port": "0000:00:02.0", "vlab-ivshmem": "0000:00:10.0"}


def main() -> None:
    with booted("rc") as role:
        kernel = role.run("uname -r").strip()
        for name, bdf in CASES.items():
            command = shell.cmd("od", "-An", "-v", "-tx1", f"/sys/bus/pci/devices/{bdf}/config")
            exitcode, output = role.run_status(command, timeout=30)
            (HERE / f"{name}.txt").write_text(output + "\n")
            (HERE / f"{name}.source").write_text(
                f"command: {command}\ntool: od (busybox)\nexit: {exitcode}\n"
                f"captured: {time.strftime('%Y-%m-%d', time.gmtime())} on the virtual board (hil/vlab, kernel "
                f"{kernel}, QEMU q35: nvme behind pcie-root-port, ivshmem-plain on pcie.0), via its serial console\n"
            )


if __name__ == "__main__":
    main()
