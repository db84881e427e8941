"""CommandProtocol on the lab PC itself, for roles the PC plays (USB host of a gadget board, iperf peer).

labgrid has no driver that runs commands locally; this is one, in labgrid's style, so a PC role is a
labgrid target like any board and the framework never needs a side path for it.
"""

from __future__ import annotations

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
    """Run commands with /bin/sh on the machine running pytest.

    Args:
        prefix (list): argv prepended to every command, e.g. ["sudo", "-n"] for root-only steps
            (dropping caches, configfs) when pytest does not run as root.
    """

    bindings: ClassVar[dict] = {}
    prefix = attr.ib(factory=list, validator=attr.validators.deep_iterable(attr.validators.instance_of(str)))

    @Driver.check_active
    @step(args=["cmd"], result=True)
    def run(self, cmd: str, timeout: float = 30.0):  # noqa: ANN201 - CommandProtocol's signature
        proc = subprocess.run(
            [*self.prefix, "/bin/sh", "-c", cmd],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return proc.stdout.splitlines(), proc.stderr.splitlines(), proc.returncode

    def _run(self, cmd: str, *, timeout: float = 30.0, **_: object):  # CommandMixin's hook
        return self.run(cmd, timeout=timeout)

    @step()
    def get_status(self) -> int:
        return 1
