"""QEMUDriver for the virtual board, tolerant of a QEMU that died or hangs.

labgrid's QEMUDriver powers off through QMP `quit`; when the emulator crashed or its monitor stopped
answering, that raises and leaves the driver believing the board is still on, so no power cycle can
ever succeed again. A hardware lab's PDU does not care whether the board is alive: neither does this.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
from pathlib import Path

import attr
from labgrid.driver.qemudriver import QEMUDriver
from labgrid.factory import target_factory
from labgrid.step import step

from hil.errors import LabError


@target_factory.reg_driver
@attr.s(eq=False)
class VlabQEMUDriver(QEMUDriver):
    QUIT_TIMEOUT_S = 10.0

    def on_activate(self) -> None:
        self._check_files()
        super().on_activate()

    def _check_files(self) -> None:
        """Name what is missing before QEMU is started, instead of a FileNotFoundError from deep inside."""
        config = self.target.env.config
        qemu = config.get_tool(self.qemu_bin)
        if not qemu or not os.access(qemu, os.X_OK):
            raise LabError(
                f"{self.target.name}: QEMU binary {qemu!r} not found: apt-get install qemu-system-x86 "
                f"(or fix tools/{self.qemu_bin} in {config.filename})"
            )
        files = {"kernel": config.get_image_path(self.kernel)} if self.kernel else {}
        if self.bios:
            files["bios"] = config.get_image_path(self.bios)
        args = shlex.split(self.extra_args)
        if "-initrd" in args and args.index("-initrd") + 1 < len(args):
            files["initrd"] = args[args.index("-initrd") + 1]
        for what, path in files.items():
            if not Path(path).is_file():
                fix = (
                    "apt-get install u-boot-qemu"
                    if what == "bios"
                    else "build the virtual lab image: python -m hil.vlab.image"
                )
                raise LabError(f"{self.target.name}: {what} image {path} does not exist ({fix})")

    @step()
    def off(self) -> None:
        if not self.status:
            return
        child = self._child
        try:
            if child.poll() is None:
                self.monitor_command("quit")
            child.wait(timeout=self.QUIT_TIMEOUT_S)
        except Exception as exc:  # QMP gone or emulator wedged: pull the plug
            self.logger.warning("QEMU did not quit cleanly (%s): killing it", exc)
            child.kill()
            child.wait(timeout=self.QUIT_TIMEOUT_S)
        if child.stdout:
            child.stdout.close()
        if child.stdin:
            child.stdin.close()
        if self._clientsocket:
            self._clientsocket.close()
            self._clientsocket = None
        self._child = None
        self.status = 0

    def pause(self) -> None:
        """Freeze the emulated CPUs: the console stops answering, as a hung board's would."""
        self.monitor_command("stop")

    def exited(self) -> bool:
        return self._child is not None and self._child.poll() is not None

    def kill(self) -> None:
        """Kill the emulator without telling the driver, as a crash would (for recovery tests)."""
        if self._child is not None:
            self._child.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._child.wait(timeout=self.QUIT_TIMEOUT_S)
