"""Regenerate the hid_throughput outputs in this folder (see ../README.md) on the virtual board.

hid_throughput needs a HID gadget and its host side, so this boots the virtual board (as tests/vlab does),
runs hil's own HID gadget (vendor descriptor, high speed over dummy_hcd) and captures each command's
output and exit status on the board. Run from the repository root:

    PYTHONPATH=. .venv/bin/python tests/data/hid/capture.py

`command:` is the command whose output NAME.txt holds; `other side:` the one run beside it, started
`other delay:` seconds after it (negative: before it). The reader starts first, except where a case says
otherwise.
"""

from __future__ import annotations

import datetime
import shlex
import sys
from pathlib import Path

from hil.lab.board.role import Role
from hil.lab.usb_gadget import udc as link
from hil.lab.usb_gadget.gadget import Gadget, Hid
from hil.vlab.board import booted

HERE = Path(__file__).resolve().parent
TOOL = "hid_throughput (hil/tools/hid_throughput.c, gcc 12.2.0 -O2 -static)"
HIDG, HIDRAW = "/dev/hidg0", "/dev/hidraw0"


def capture(
    board: Role, name: str, command: str, other: str | None = None, other_name: str | None = None, delay: float = 1.0
) -> None:
    """Run `command` (and `other` beside it, `delay` s later) on the board; keep command's output as NAME
    and, with `other_name`, other's output as OTHER_NAME."""
    out = "/tmp/hil-capture"
    script = f"rm -rf {out}; mkdir {out}; ( {{ {command}; }} > {out}/out 2>&1; echo $? > {out}/rc ) & "
    if other is not None:
        script += f"sleep {delay}; {{ {other}; }} > {out}/other 2>&1; echo $? > {out}/other-rc; "
    script += f"wait; cat {out}/rc; cat {out}/out"
    _save(board, name, board.run(script, timeout=120), command, other, delay)
    if other is not None and other_name is not None:
        _save(board, other_name, board.run(f"cat {out}/other-rc {out}/other"), other, command, -delay)


def _save(board: Role, name: str, output: str, command: str, other: str | None, delay: float) -> None:
    status, _, text = output.partition("\n")
    (HERE / f"{name}.txt").write_text(text + ("\n" if text and not text.endswith("\n") else ""))
    kernel = board.run("uname -srn").strip()
    lines = [f"command: {command}"]
    if other is not None:
        lines += [f"other side: {other}", f"other delay: {delay:g} s"]
    lines += [
        f"tool: {TOOL}",
        f"exit: {status.strip()}",
        f"captured: {datetime.date.today()} on the hil virtual board ({kernel}, TCG), HID gadget (vendor "
        "descriptor) over dummy_hcd at high speed; read back over the serial console (ShellDriver), LC_ALL=C",
    ]
    (HERE / f"{name}.source").write_text("\n".join(lines) + "\n")
    print(name, status.strip(), text.strip().splitlines()[-1:] if text.strip() else "")


def tool(*args: object) -> str:
    return shlex.join(["hid_throughput", *(str(a) for a in args)])


def main() -> int:
    with booted("device") as board:
        link.ensure_module(board, "dummy_hcd", {"is_super_speed": "false"})
        for size in (512, 1024):
            with Gadget(board, "dummy_udc.0", [Hid(report_length=size)]):
                board.run(f"for i in $(seq 50); do [ -c {HIDRAW} ] && [ -c {HIDG} ] && break; sleep 0.2; done")
                capture(
                    board,
                    f"in-{size}",
                    tool("read", HIDRAW, size, 200, 30),
                    tool("write", HIDG, size, 200, 30),
                    f"in-{size}-writer",
                )
                capture(
                    board,
                    f"out-{size}",
                    tool("read", HIDG, size, 200, 30),
                    tool("write", HIDRAW, size, 200, 30, "hidraw"),
                )
                if size == 512:
                    # Nobody writes: the time bound ends the reader (exit 4, a line with nothing timed).
                    capture(board, "in-512-nothing-sent", tool("read", HIDRAW, 512, 200, 2))
                    # The writer starts before anybody reads: hidraw drops what arrives while closed.
                    capture(
                        board,
                        "in-512-late-writer",
                        tool("write", HIDG, 512, 200, 30),
                        tool("read", HIDRAW, 512, 200, 30),
                        "in-512-late-reader",
                    )
                    # The last 100 numbers never come (as when hidraw dropped the last reports): after the
                    # writer is done the reader is ended with TERM, as hil.measure.hid does (exit 4).
                    capture(
                        board,
                        "in-512-tail-missing",
                        tool("read", HIDRAW, 512, 300, 30),
                        tool("write", HIDG, 512, 200, 30) + "; sleep 1; kill -TERM $(pidof hid_throughput)",
                    )
                if size == 1024:
                    # The reader expects shorter reports than the gadget sends: a wrong size (exit 3).
                    capture(
                        board,
                        "in-1024-read-as-512",
                        tool("read", HIDRAW, 512, 200, 10),
                        tool("write", HIDG, 1024, 200, 10),
                    )
        capture(board, "missing-device", tool("read", "/dev/hidraw9", 512, 200, 5))
        capture(board, "bad-report-size", tool("read", HIDRAW, 2, 200, 5))
    return 0


if __name__ == "__main__":
    sys.exit(main())
