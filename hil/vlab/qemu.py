"""QEMUDriver for the virtual board, tolerant of a QEMU that died or hangs.

labgrid's QEMUDriver powers off through QMP `quit`; when the emulator crashed or its monitor stopped
answering, that raises and leaves the driver believing the board is still on, so no power cycle can
ever succeed again. A hardware lab's PDU does not care whether the board is alive: neither does this.
"""

from __future__ import annotations

import contextlib
import subprocess

import attr
from labgrid.driver.qemudriver import QEMUDriver
from labgrid.factory import target_factory
from labgrid.step import step


@target_factory.reg_driver
@attr.s(eq=False)
class VlabQEMUDriver(QEMUDriver):
    QUIT_TIMEOUT_S = 10.0

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
