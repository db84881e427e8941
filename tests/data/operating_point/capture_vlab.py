"""Regenerate the virtual board's operating-point snapshots: `python tests/data/operating_point/capture_vlab.py`.

Boots the virtual board (hil/vlab/env.yaml), runs hil.measure.operating_point.SCRIPT (and
hil.measure.board_state.COMMAND: /proc/stat and it in sections) as the board is, then with cpu1 taken offline and put
back, and writes NAME.txt (the console output, verbatim) and NAME.source beside this file.
"""

from __future__ import annotations

import time
from pathlib import Path

from hil.lab.board.role import Role
from hil.measure.board_state import COMMAND
from hil.measure.operating_point import SCRIPT
from hil.vlab.board import booted

HERE = Path(__file__).resolve().parent


def capture(role: Role, name: str, kernel: str, state: str, command: str = SCRIPT) -> None:
    exitcode, output = role.run_status(command, timeout=60)
    (HERE / f"{name}.txt").write_text(output + "\n")
    what = "operating_point.SCRIPT" if command == SCRIPT else "board_state.COMMAND"
    (HERE / f"{name}.source").write_text(
        f"command: hil.measure.{what} (one shell command of several lines, run as it is)\n"
        f"tool: busybox sh (the board's /bin/sh)\nexit: {exitcode}\n"
        f"captured: {time.strftime('%Y-%m-%d', time.gmtime())} on the virtual board (hil/vlab, kernel {kernel}, "
        f"QEMU q35 TCG -smp 2), via its serial console; {state}\n"
    )


def main() -> None:
    with booted("rc") as role:
        kernel = role.run("uname -r").strip()
        capture(role, "vlab", kernel, "both CPUs online, as booted")
        capture(role, "vlab-board-state", kernel, "both CPUs online, as booted", COMMAND)
        role.run("echo 0 > /sys/devices/system/cpu/cpu1/online")
        capture(role, "vlab-cpu1-offline", kernel, "cpu1 taken offline just before (echo 0 > .../cpu1/online)")
        offline = "cpu1 taken offline just before (echo 0 > .../cpu1/online)"
        capture(role, "vlab-board-state-cpu1-offline", kernel, offline, COMMAND)
        role.run("echo 1 > /sys/devices/system/cpu/cpu1/online")
        capture(role, "vlab-cpu1-online-again", kernel, "cpu1 put online again just before (echo 1 > ...)")


if __name__ == "__main__":
    main()
