"""A gadget's one second chance: only the kernel's "sysfs directory gone" failure to bind (a gadget removed
just before was still being torn down) makes hil remove the whole gadget and make a new one after a pause
(binding the spent function again crashed the kernel); any other failure, or a second one, is the
CommandFailed with the kernel's lines. The race cannot be provoked on demand on the virtual board, so the
board here answers from a script: the kernel lines are the ones the virtual lab printed (2026-11-27)."""

from __future__ import annotations

import pytest

from hil.errors import CommandFailed
from hil.lab.usb_gadget.gadget import Ecm, Gadget

RACE = """\
[  664.584247] unloading
[  665.855473] kobject_add_internal failed for usb1 (error: -2 parent: net)
[  665.855972] udc dummy_udc.0: failed to start hil: -2
[  665.856028] configfs-gadget.hil: probe of gadget.0 failed with error -2"""
NO_ENDPOINT = """\
[   41.870793] configfs-gadget.hil gadget.0: uvc: Unable to allocate streaming EP
[   41.871057] udc dummy_udc.0: failed to start hil: -22"""


class ScriptedBoard:
    """The UDC write fails as often as `failures` says, with `kernel` in dmesg; everything else succeeds."""

    label = "vlab-ss/device (vboard)"
    suspect_reason = None  # its console answers

    def __init__(self, failures: int, kernel: str) -> None:
        self.failures, self.kernel, self.commands = failures, kernel, []

    def run_status(self, command: str, **_: object) -> tuple[int, str]:
        self.commands.append(command)
        if command.endswith("/UDC") and self.failures:
            self.failures -= 1
            return 1, "sh: 1: printf: printf: I/O error"
        return 0, ""

    def run(self, command: str, **_: object) -> str:
        self.commands.append(command)
        return {"ls /sys/class/udc": "dummy_udc.0", "dmesg | tail -n 15": self.kernel}.get(command, "")


UDC_WRITE = "printf '%s\\n' dummy_udc.0 > /sys/kernel/config/usb_gadget/hil/UDC"
MKDIR = "mkdir /sys/kernel/config/usb_gadget/hil/functions/ecm.0"  # a new function instance


def binds(board: ScriptedBoard) -> list[str]:
    """Enter the gadget; the steps that tell the story: the tree made, the sleep, the UDC written, the tree removed."""
    with Gadget(board, "dummy_udc.0", [Ecm()]):  # type: ignore[arg-type]
        pass
    return [step for step in map(_step, board.commands) if step]


def _step(command: str) -> str:
    if command == UDC_WRITE:
        return "bind"
    if MKDIR in command:
        return "make"
    if command.startswith("sleep"):
        return command
    if command.startswith("cd /sys/kernel/config/usb_gadget/hil && "):  # the tree taken down
        return "remove"
    return ""


def test_the_sysfs_race_gets_a_new_gadget_after_a_pause(caplog):
    board = ScriptedBoard(1, RACE)
    assert binds(board) == ["remove", "make", "bind", "remove", "sleep 2", "make", "bind", "remove"]
    assert "making it again in 2 s" in caplog.text and "kobject_add_internal failed" in caplog.text


def test_the_race_twice_is_the_error():
    with pytest.raises(CommandFailed, match="kobject_add_internal failed"):
        binds(ScriptedBoard(2, RACE))


def test_any_other_bind_failure_is_the_error_at_once():
    board = ScriptedBoard(1, NO_ENDPOINT)
    with pytest.raises(CommandFailed, match="Unable to allocate streaming EP"):
        binds(board)
    assert not any(c.startswith("sleep") for c in board.commands)
