"""Regenerate the virtual board's operating-point snapshots: `python tests/data/operating_point/capture_vlab.py`.

Boots the virtual board (hil/vlab/env.yaml), runs hil.measure.operating_point.SCRIPT as the board is, then
with cpu1 taken offline and put back, and writes NAME.txt (the console output, verbatim) and NAME.source
beside this file.
"""

from __future__ import annotations

import time
from pathlib import Path

from labgrid import Environment

from hil.lab.board.role import Role
from hil.lab.pair import set_vlab_image_env
from hil.measure.operating_point import SCRIPT
from hil.vlab import ENV_FILE
from hil.vlab.image import ensure_image

HERE = Path(__file__).resolve().parent


def capture(role: Role, name: str, kernel: str, state: str) -> None:
    exitcode, output = role.run_status(SCRIPT, timeout=60)
    (HERE / f"{name}.txt").write_text(output + "\n")
    (HERE / f"{name}.source").write_text(
        "command: hil.measure.operating_point.SCRIPT (one shell command of several lines, run as it is)\n"
        f"tool: busybox sh (the board's /bin/sh)\nexit: {exitcode}\n"
        f"captured: {time.strftime('%Y-%m-%d', time.gmtime())} on the virtual board (hil/vlab, kernel {kernel}, "
        f"QEMU q35 TCG -smp 2), via its serial console; {state}\n"
    )


def main() -> None:
    set_vlab_image_env(ensure_image().directory)
    env = Environment(config_file=str(ENV_FILE))
    role = Role("rc", env.get_target("vboard"), "capture")
    try:
        role.ensure_ready()
        kernel = role.run("uname -r").strip()
        capture(role, "vlab", kernel, "both CPUs online, as booted")
        role.run("echo 0 > /sys/devices/system/cpu/cpu1/online")
        capture(role, "vlab-cpu1-offline", kernel, "cpu1 taken offline just before (echo 0 > .../cpu1/online)")
        role.run("echo 1 > /sys/devices/system/cpu/cpu1/online")
        capture(role, "vlab-cpu1-online-again", kernel, "cpu1 put online again just before (echo 1 > ...)")
    finally:
        env.get_target("vboard").get_strategy().transition("off")
        env.cleanup()


if __name__ == "__main__":
    main()
