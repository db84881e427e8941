"""CommandProtocol on the lab PC itself (labgrid has none), so a PC role is a labgrid target like any board."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from typing import ClassVar

import attr
from labgrid.driver.commandmixin import CommandMixin
from labgrid.driver.common import Driver
from labgrid.factory import target_factory
from labgrid.protocol import CommandProtocol
from labgrid.step import step


@target_factory.reg_driver
@attr.s(eq=False)
class LocalShellDriver(CommandMixin, Driver, CommandProtocol):
    """Run commands with /bin/sh on the machine running pytest; `prefix` goes before each (["sudo", "-n"])."""

    bindings: ClassVar[dict] = {}
    KILL_GRACE_S: ClassVar[float] = 2.0
    prefix = attr.ib(factory=list, validator=attr.validators.deep_iterable(attr.validators.instance_of(str)))

    @Driver.check_active
    @step(args=["cmd"], result=True)
    def run(self, cmd: str, timeout: float = 30.0):  # noqa: ANN201 - CommandProtocol's signature
        # A session of its own, so a timeout ends everything the command started: subprocess.run would
        # kill only /bin/sh and leave e.g. a dd running into the next measurement.
        proc = subprocess.Popen(
            [*self.prefix, "/bin/sh", "-c", cmd],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except BaseException:  # the timeout, but also pytest-timeout or ^C interrupting communicate()
            self._kill_group(proc)
            raise
        return stdout.splitlines(), stderr.splitlines(), proc.returncode

    def _kill_group(self, proc: subprocess.Popen) -> None:
        # TERM first: with a `sudo` prefix only sudo can be signalled, and it relays TERM to the command.
        # Then KILL for whatever ignored TERM (the group outlives /bin/sh if a child survived).
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=self.KILL_GRACE_S)
        # Do not wait for the pipes: a process that escaped the group may hold them open forever.
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()

    def _run(self, cmd: str, *, timeout: float = 30.0, **_: object):  # CommandMixin's hook
        return self.run(cmd, timeout=timeout)

    @step()
    def get_status(self) -> int:
        return 1
