"""Regenerate what boards say they are: `python tests/data/identify/capture_vlab.py`.

Boots the virtual board (hil/vlab/env.yaml) and runs hil.lab.board.identify.SCRIPT on it (vlab.txt) and on the
lab PC beside it (lab-pc.txt: hil's LocalShellDriver), and writes NAME.txt (the output, verbatim) and
NAME.source beside this file.
"""

from __future__ import annotations

import getpass
import time
from pathlib import Path

from hil.lab.board.identify import SCRIPT
from hil.lab.board.role import Role
from hil.vlab.board import environment

HERE = Path(__file__).resolve().parent


def capture(role: Role, name: str, where: str) -> None:
    exitcode, output = role.run_status(SCRIPT, timeout=60)
    (HERE / f"{name}.txt").write_text(output + "\n")
    (HERE / f"{name}.source").write_text(
        "command: hil.lab.board.identify.SCRIPT (one shell command line, run as it is)\n"
        f"tool: the board's /bin/sh\nexit: {exitcode}\n"
        f"captured: {time.strftime('%Y-%m-%d', time.gmtime())} {where}\n"
    )


def main() -> None:
    with environment() as env:
        board = Role("device", env.get_target("vboard"), "capture")
        board.ensure_ready()
        kernel = board.run("uname -r").strip()
        capture(board, "vlab", f"on the virtual board (hil/vlab, kernel {kernel}, QEMU q35 TCG), its serial console")
        capture(Role("host", env.get_target("lab-pc"), "capture"), "lab-pc", f"on the lab PC as {getpass.getuser()}")


if __name__ == "__main__":
    main()
