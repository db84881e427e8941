"""Seed 001's re-attach between a write and its read (GadgetOnLink.reattach_disk) on its ways out: a disk the
host cannot unmount never leaves the bus, and a gadget taken off the bus is put back on it even when the host
never lets it go. Neither can be provoked on the virtual board on demand (its run: testcases/usb_device/
test_msc_fs.py), so the boards here answer from a script: the commands are the ones the boards get."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from hil.errors import CommandFailed, LabError
from hil.lab.usb_gadget.gadget import Gadget, MassStorage
from hil.lab.usb_gadget.on_link import GadgetOnLink
from hil.lab.usb_host.usbhost import UsbDevice

UDC = "/sys/kernel/config/usb_gadget/hil/UDC"
UNBIND = f"[ ! -e {UDC} ] || [ -z \"$(cat {UDC})\" ] || printf '%s\\n' '' > {UDC}"
BIND = f"printf '%s\\n' dummy_udc.0 > {UDC}"


@dataclass
class ScriptedBoard:
    """Both roles of the pair on one board (as on the virtual lab); `fails` lists the commands that fail."""

    fails: tuple[str, ...]
    commands: list[str] = field(default_factory=list)
    label = "vlab-hs/host (vboard)"

    def run_status(self, command: str, **_: object) -> tuple[int, str]:
        self.commands.append(command)
        return (1, "umount: /mnt/hil-msc: target is busy.") if command.startswith(self.fails) else (0, "")

    def run(self, command: str, *, check: bool = True, **_: object) -> str:
        if command == "ls /sys/class/udc":
            return "dummy_udc.0"
        status, output = self.run_status(command)
        if check and status:
            raise CommandFailed(self.label, command, status, output)
        return output


@dataclass
class Pair:
    host: ScriptedBoard

    @property
    def device(self) -> ScriptedBoard:
        return self.host


def reattach(fails: tuple[str, ...]) -> tuple[list[str], str]:
    """The unmounts, unbinds and binds the boards got, and the error it ended with."""
    board = ScriptedBoard(fails)
    gadget = Gadget(board, "dummy_udc.0", [MassStorage()])  # type: ignore[arg-type]
    device = UsbDevice("/sys/bus/usb/devices/1-1", 480.0, "1d6b", "0104", gadget.serial)
    on_link = GadgetOnLink(Pair(board), gadget, device)  # type: ignore[arg-type]
    with pytest.raises(LabError) as raised:
        on_link.reattach_disk("/mnt/hil-msc", "ext2", timeout_s=1)
    return [step for step in board.commands if step in (UNBIND, BIND) or "umount" in step], str(raised.value)


def test_a_busy_disk_is_the_error_and_stays_on_the_bus():
    steps, error = reattach(fails=("umount",))
    assert steps == ["umount /mnt/hil-msc"]
    assert error.endswith("`umount /mnt/hil-msc` exited 1:\numount: /mnt/hil-msc: target is busy.")


def test_a_device_the_host_never_drops_is_put_back_on_the_bus():
    steps, error = reattach(fails=("s=",))  # the host's look for the gone device never succeeds
    assert steps == ["umount /mnt/hil-msc", UNBIND, BIND]
    assert "is still enumerated 1 s after the board disconnected it" in error
