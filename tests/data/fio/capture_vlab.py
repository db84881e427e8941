"""Regenerate the virtual board's fio outputs in this folder: `.venv/bin/python tests/data/fio/capture_vlab.py`.

Boots the virtual board (hil/vlab/env.yaml), runs the commands hil.measure.fio builds on its QEMU NVMe
namespace, and writes NAME.txt (the console output, verbatim) and NAME.source beside this file.
"""

from __future__ import annotations

import time
from pathlib import Path

from hil.lab.board.role import Role
from hil.lab.storage import nvme
from hil.measure import fio
from hil.vlab.board import booted

HERE = Path(__file__).resolve().parent
CASES = {
    "vlab-seq1m-q32t1-write": fio.FioJob("write", "1M", iodepth=32),
    "vlab-seq1m-q32t1-read": fio.FioJob("read", "1M", iodepth=32),
    "vlab-rnd4k-q32t1-write": fio.FioJob("randwrite", "4K", iodepth=32),
    "vlab-rnd4k-q32t1-read": fio.FioJob("randread", "4K", iodepth=32),
}


def capture(role: Role, name: str, command: str, tool: str, kernel: str) -> None:
    exitcode, output = role.run_status(command + " 2>&1", timeout=300)
    (HERE / f"{name}.txt").write_text(output + "\n")
    (HERE / f"{name}.source").write_text(
        f"command: {command}\ntool: {tool}\nexit: {exitcode}\n"
        f"captured: {time.strftime('%Y-%m-%d', time.gmtime())} on the virtual board (hil/vlab, Debian 12 "
        f"fio, kernel {kernel}, QEMU nvme on a sparse file), via its serial console\n"
    )


def main() -> None:
    with booted("rc") as role:
        namespace = nvme.wait_for_namespace(role, "/dev/nvme0n1")
        tool, kernel = fio.version(role), role.run("uname -r").strip()
        capture(role, "vlab-enghelp", "fio --enghelp", tool, kernel)
        for name, job in CASES.items():
            command = fio.command(namespace.node, job, engine="libaio", size_mb=512, runtime_s=3)
            capture(role, name, command, tool, kernel)
        # The fallback engine, as a board without libaio runs it.
        command = fio.command(namespace.node, CASES["vlab-rnd4k-q32t1-read"], engine="psync", size_mb=512, runtime_s=3)
        capture(role, "vlab-rnd4k-q32t1-read-psync", command, tool, kernel)


if __name__ == "__main__":
    main()
