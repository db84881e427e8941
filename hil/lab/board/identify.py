"""What a board says it is, read with one command after each boot: its architecture and kernel, and which board
it is (hil.facts.BoardIdentity), so every result names the board that measured it.

Model and serial come from the device tree, else DMI; the MAC is the burnt-in address (addr_assign_type 0) of
the first Ethernet interface with a device, not a gadget's or a bridge's, made up at each boot. A file the
board lacks, or a DMI placeholder, is None, never guessed.
"""

from __future__ import annotations

import re
from typing import NoReturn

from hil.errors import LabError
from hil.facts import BoardIdentity
from hil.lab.board import shell
from hil.lab.board.console import without_kernel_messages
from hil.lab.board.shell import Shell

MODEL_FILES = ("/proc/device-tree/model", "/sys/firmware/devicetree/base/model", "/sys/class/dmi/id/product_name")
SERIAL_FILES = (
    "/proc/device-tree/serial-number",
    "/sys/firmware/devicetree/base/serial-number",
    "/sys/class/dmi/id/product_serial",
)
# What firmware writes into a DMI field it was given nothing for: no board's name or serial number.
PLACEHOLDERS = {"", "none", "not specified", "not applicable", "to be filled by o.e.m.", "default string", "0"}
MAC = re.compile(r"[0-9a-f]{2}(?::[0-9a-f]{2}){5}")


# hil_id KEY FILE...: `KEY value` from the first file the board can read (device-tree strings end in a NUL).
SCRIPT = "; ".join(
    [
        """hil_id(){ k=$1; shift; for f; do [ -r "$f" ] && """
        """{ printf '%s %s\\n' "$k" "$(tr -d '\\000\\n' <"$f")"; return; }; done; }""",
        'echo "arch $(uname -m)"; echo "kernel $(uname -r)"',
        shell.cmd("hil_id", "model", *MODEL_FILES),
        shell.cmd("hil_id", "serial", *SERIAL_FILES),
        """for i in /sys/class/net/*; do [ "$(cat "$i/type")" = 1 ] && [ "$(cat "$i/addr_assign_type")" = 0 ] """
        """&& [ -e "$i/device" ] && { echo "mac $(cat "$i/address")"; break; }; done 2>/dev/null""",
        "echo end",
    ]
)


def identify(role: Shell) -> tuple[str, str, BoardIdentity]:
    """(architecture, kernel release, identity) of the role's board: one command (SCRIPT)."""
    return parse(role.run(SCRIPT, timeout=30), role.label)


def parse(output: str, where: str) -> tuple[str, str, BoardIdentity]:
    """SCRIPT's output: `arch` and `kernel` lines, model, serial and mac where found, each once, then `end`."""
    lines = without_kernel_messages(output).replace("\r", "").splitlines()
    if not lines or lines[-1] != "end":
        _refused(output, where, "it did not end in `end`")
    found: dict[str, str] = {}
    for line in lines[:-1]:
        key, _, value = line.partition(" ")
        if key not in ("arch", "kernel", "model", "serial", "mac") or key in found:
            _refused(output, where, f"unexpected line {line!r}")
        found[key] = value.strip()
    if not found.get("arch") or not found.get("kernel") or " " in found["arch"] + found["kernel"]:
        _refused(output, where, "no single-word `uname -m` and `uname -r`")
    mac = found.get("mac")
    if mac is not None and not MAC.fullmatch(mac):
        _refused(output, where, f"{mac!r} is no MAC address")
    identity = BoardIdentity(
        model=_given(found.get("model")),
        serial=_given(found.get("serial")),
        mac=None if mac in (None, "00:00:00:00:00:00") else mac,
    )
    return found["arch"], found["kernel"], identity


def _given(value: str | None) -> str | None:
    return None if value is None or value.strip().lower() in PLACEHOLDERS else value.strip()


def _refused(output: str, where: str, why: str) -> NoReturn:
    raise LabError(f"{where}: what the board says it is did not parse ({why}); its output:\n{output}")
