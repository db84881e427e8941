"""hil's GadgetFS bulk UVC camera (hil/tools/uvc_gadgetfs.c) as a gadget backend: the way a UVC stream
crosses a UDC without isochronous endpoints (the virtual lab's dummy_hcd), over one bulk endpoint.

The program is the whole gadget (descriptors, ep0, frames): no configfs tree. The UDC is released whenever
ep0 closes, so a crashed program leaves no gadget. GadgetFS binds at high speed at most.
"""

from __future__ import annotations

import shlex
from typing import ClassVar

from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.background import Background
from hil.lab.board.role import Role
from hil.lab.usb_gadget.gadget import Function, Gadget, GadgetBackend, GadgetIdentity, Uvc

PROGRAM = "uvc_gadgetfs"
MODULE = "gadgetfs"
MOUNT = "/dev/gadget"
MAX_PAYLOAD = 16384  # dwMaxPayloadTransferSize: 32 packets of 512 B, what uvcvideo puts in one bulk URB
GADGETFS_FUNCTION = "USB Gadget filesystem"  # what /sys/class/udc/*/function shows while gadgetfs holds it


def udc_function(role: Role, udc: str) -> str:
    """The gadget driver holding `udc` (its sysfs `function`), empty when the UDC is free."""
    path = f"/sys/class/udc/{udc}"
    if role.run_status(f"[ -d {shlex.quote(path)} ]")[0] != 0:
        raise LabError(f"{role.label}: UDC {udc!r} not present")
    return role.run(shell.cmd("cat", f"{path}/function"), check=False).strip()


def camera_command(udc: str, camera: Uvc, serial: str) -> str:
    return shell.cmd(PROGRAM, MOUNT, udc, camera.fmt, camera.width, camera.height, MAX_PAYLOAD, serial)


class GadgetfsCamera(GadgetBackend):
    """One UVC camera (`Uvc`'s format and frame size) streaming over bulk from hil's GadgetFS program."""

    backend: ClassVar[str] = "gadgetfs"
    max_speed: ClassVar[str] = "high"  # gadgetfs' max_speed (legacy/inode.c)

    def __init__(self, role: Role, udc: str, camera: Uvc, *, identity: GadgetIdentity | None = None) -> None:
        self.role = role
        self.udc = udc
        self.camera = camera
        self.functions: list[Function] = [camera]
        # The program's own descriptors: Linux Foundation's webcam gadget id, its strings.
        self.identity = identity or GadgetIdentity(product_id=0x0102, product="hil gadgetfs bulk camera")
        self.process: Background | None = None

    def function_dir(self, function: Function) -> str:
        raise LabError(f"{self.role.label}: the GadgetFS camera has no configfs function directory")

    def describe(self) -> str:
        return f"GadgetFS bulk UVC camera ({PROGRAM}) on {self.udc}"

    def __enter__(self) -> GadgetfsCamera:
        self.role.run(shell.cmd("modprobe", MODULE), timeout=60)
        # hil's configfs gadget of a crashed earlier test would hold the UDC: remove it, as configfs does.
        Gadget(self.role, self.udc, [self.camera]).remove()
        self._unmount()
        if holder := udc_function(self.role, self.udc):
            raise LabError(
                f"{self.role.label}: UDC {self.udc} is held by gadget driver {holder!r}: "
                f"{PROGRAM} needs it free (remove that gadget first)"
            )
        mount = [shell.cmd("mkdir", "-p", MOUNT), shell.cmd("mount", "-t", "gadgetfs", "gadgetfs", MOUNT)]
        self.role.run(shell.all_of(mount))
        command = camera_command(self.udc, self.camera, self.serial)
        self.process = self.role.background(command, ready=f"{PROGRAM} ready", name=PROGRAM)
        try:
            self.process.__enter__()
        except BaseException:
            self.process = None
            self.release_quietly()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            if self.process is not None:
                self.process.stop(quiet=exc_info[0] is not None)
        finally:
            super().__exit__(*exc_info)

    @property
    def output(self) -> str:
        """What the program printed (its frame count once stopped)."""
        return self.process.output if self.process is not None else ""

    def release(self) -> None:
        """Unmount gadgetfs and check that the UDC is free for the next gadget."""
        self._unmount()
        if holder := udc_function(self.role, self.udc):
            raise LabError(f"{self.role.label}: UDC {self.udc} still held by {holder!r} after {PROGRAM} stopped")

    def _unmount(self) -> None:
        mount = shlex.quote(MOUNT)
        self.role.run(f"! grep -q ' {mount} gadgetfs ' /proc/mounts || umount {mount}", timeout=60)
