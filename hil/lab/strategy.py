"""Bring a board to a shell, and bring it back when a test left it broken.

labgrid's ShellStrategy waits for systemd and, once anything fails, stays broken for the rest of the
session (`never_retry`). A performance lab needs the opposite: a hung board costs one power cycle, not the
remaining tests. Works for any target with a power driver, a console and a ShellDriver: the virtual
board (QEMU is both power and console) and real boards (PDU + serial port).
"""

from __future__ import annotations

import enum
import time
from typing import ClassVar

import attr
from labgrid.factory import target_factory
from labgrid.step import step
from labgrid.strategy import Strategy, StrategyError

from hil.errors import BoardTimeout


class Status(enum.Enum):
    unknown = 0
    off = 1
    shell = 2


@target_factory.reg_driver
@attr.s(eq=False)
class BoardStrategy(Strategy):
    bindings: ClassVar[dict] = {
        "power": "PowerProtocol",
        "console": "ConsoleProtocol",
        "shell": "ShellDriver",
    }

    status = attr.ib(default=Status.unknown)
    boot_attempts = attr.ib(default=2, validator=attr.validators.instance_of(int))
    probe_timeout = attr.ib(default=10, validator=attr.validators.instance_of(int))

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        self.boot_times_s: list[float] = []
        self.power_cycles = 0
        self.suspect_reason: str | None = None

    @step(args=["status"])
    def transition(self, status, *, step) -> None:  # noqa: ANN001 - labgrid's signature
        if not isinstance(status, Status):
            status = Status[status]
        if status == Status.unknown:
            raise StrategyError(f"can not transition to {status}")
        if status == self.status:
            step.skip("nothing to do")
            return
        if status == Status.off:
            self._power_off()
        else:
            self._boot_to_shell()
        self.status = status

    def _power_off(self) -> None:
        self.target.deactivate(self.shell)
        self.target.activate(self.power)
        self.power.off()

    def _boot_to_shell(self) -> None:
        failures = []
        for attempt in range(1, self.boot_attempts + 1):
            self._power_off()
            self.target.activate(self.console)
            started = time.monotonic()
            self.power.on()
            self.power_cycles += 1
            try:
                self.target.activate(self.shell)
            except Exception as exc:  # login timeout, console EOF, ...: try another power cycle
                failures.append(f"attempt {attempt}: {type(exc).__name__}: {exc}")
                self.logger.warning("%s: no shell after power-on (%s)", self.target.name, exc)
                continue
            self.boot_times_s.append(time.monotonic() - started)
            self.suspect_reason = None
            return
        self.status = Status.unknown
        raise BoardTimeout(
            f"{self.target.name}: no shell after {self.boot_attempts} power cycles:\n  " + "\n  ".join(failures)
        )

    def mark_suspect(self, reason: str) -> None:
        """A command on this board timed out: the next `ensure_shell` power-cycles instead of probing."""
        self.suspect_reason = reason

    @step()
    def power_cycle(self) -> None:
        self.status = Status.unknown
        self.transition(Status.shell)

    @step()
    def ensure_shell(self) -> None:
        """Boot the board if it is off; power-cycle it if it was marked suspect or does not answer."""
        if self.status != Status.shell:
            self.transition(Status.shell)
            return
        if self.suspect_reason is not None:
            self.logger.warning("%s: power cycling after: %s", self.target.name, self.suspect_reason)
            self.power_cycle()
            return
        try:
            _, _, exitcode = self.shell.run("true", timeout=self.probe_timeout)
            if exitcode == 0:
                return
        except Exception as exc:  # a dead console raises TIMEOUT or EOF from pexpect
            self.logger.warning("%s: shell does not answer (%s): power cycling", self.target.name, exc)
        self.power_cycle()
