"""Bring a board to a shell, and bring it back when a test left it broken.

What hil needs from a board's labgrid strategy is `BoardControl`: boot it (or power-cycle it when it
was marked suspect or does not answer), mark it suspect, and say how often and how fast it booted.
`Role` talks to strategies only through it, and a pair whose target has a strategy without it is
refused when the pair is opened, naming what is missing.

labgrid's ShellStrategy waits for systemd and, once anything fails, stays broken for the rest of the
session (`never_retry`). A performance lab needs the opposite: a hung board costs one power cycle, not
the remaining tests. `RecoveringStrategy` holds that logic once; a board's strategy only says how it
gets from power-on to a logged-in shell:

- `BoardStrategy`: power on, log in on the console (the virtual board; real boards that boot
  straight into Linux).
- `BootloaderStrategy`: power on, stop the boot loader at its prompt, boot, log in (boards whose
  U-Boot must be interrupted, labgrid's `UBootDriver` style).

A board author with another boot flow (fastboot, a USB loader) subclasses `RecoveringStrategy` and
implements `bring_up()`, or writes any labgrid strategy that satisfies `BoardControl`.
"""

from __future__ import annotations

import abc
import enum
import time
from typing import ClassVar, Protocol, runtime_checkable

import attr
from labgrid.factory import target_factory
from labgrid.step import step
from labgrid.strategy import Strategy, StrategyError

from hil.errors import BoardTimeout


@runtime_checkable
class BoardControl(Protocol):
    """The strategy interface hil relies on (see the module docstring)."""

    power_cycles: int  # power-ons this session
    boot_times_s: list[float]  # power-on to shell, per boot
    suspect_reason: str | None  # set: the next ensure_shell power-cycles instead of probing

    def ensure_shell(self) -> None:
        """Return with a shell that answers: boot when off, power-cycle when suspect or silent."""

    def mark_suspect(self, reason: str) -> None:
        """A command on this board timed out or its console closed: do not trust it until power-cycled."""

    def power_cycle(self) -> None:
        """Power off, power on, and bring the board to a shell."""


def missing_board_control(strategy: object) -> list[str]:
    """The BoardControl members `strategy` lacks (empty when it satisfies the interface)."""
    names = ("ensure_shell", "mark_suspect", "power_cycle", "power_cycles", "boot_times_s", "suspect_reason")
    return [name for name in names if not hasattr(strategy, name)]


class Status(enum.Enum):
    unknown = 0
    off = 1
    shell = 2


@attr.s(eq=False)
class RecoveringStrategy(Strategy, abc.ABC):
    """Boot once, power-cycle on suspicion, retry a failed boot: BoardControl for any boot flow.

    Subclasses declare their bindings (at least `power` and `shell`) and implement `bring_up()`.
    """

    status = attr.ib(default=Status.unknown)
    boot_attempts = attr.ib(default=2, validator=attr.validators.instance_of(int))
    probe_timeout = attr.ib(default=10, validator=attr.validators.instance_of(int))

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        self.boot_times_s: list[float] = []
        self.power_cycles = 0
        self.suspect_reason: str | None = None

    @abc.abstractmethod
    def bring_up(self) -> None:
        """From power off to a logged-in shell: power on, any boot stages, activate the shell driver.

        Raise anything on failure: the caller powers off and tries again, up to `boot_attempts`.
        Increment nothing: the caller counts power-ons and times the boot.
        """

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
            self.power_off()
        else:
            self._boot_to_shell()
        self.status = status

    def power_off(self) -> None:
        self.target.deactivate(self.shell)
        self.target.activate(self.power)
        self.power.off()
        self._forget_console_output()

    def _forget_console_output(self) -> None:
        """Drop what the console read but nobody matched: prompts of the board that was just switched off.

        During a boot the ShellDriver sends a newline every few seconds, and the prompts they produce sit
        in the console's expect buffer; the next power-on would match one at once and "boot" in 0.1 s while
        the new board is still in its firmware. A real board's console (ser2net, a USB UART) is the same
        driver object across power cycles, so this holds for every board, not only the virtual one.
        """
        expect = getattr(self.console, "_expect", None)  # labgrid's ConsoleExpectMixin keeps a pexpect here
        if expect is not None:
            expect.buffer = expect.string_type()
            # pexpect keeps the unmatched text in `_before` too, and refills the buffer from it when that is
            # longer (Expecter.existing_data): both go.
            if hasattr(expect, "_before"):
                expect._before = expect.buffer_type()

    def _boot_to_shell(self) -> None:
        failures = []
        for attempt in range(1, self.boot_attempts + 1):
            self.power_off()
            started = time.monotonic()
            self.power_cycles += 1
            try:
                self.bring_up()
            except Exception as exc:  # login timeout, console EOF, boot loader silent: another power cycle
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
        self.suspect_reason = reason

    @step()
    def power_cycle(self) -> None:
        self.status = Status.unknown
        self.transition(Status.shell)

    @step()
    def ensure_shell(self) -> None:
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


@target_factory.reg_driver
@attr.s(eq=False)
class BoardStrategy(RecoveringStrategy):
    """Power on and log in: a board (or the virtual board) that boots straight into Linux."""

    bindings: ClassVar[dict] = {
        "power": "PowerProtocol",
        "console": "ConsoleProtocol",
        "shell": "ShellDriver",
    }

    def bring_up(self) -> None:
        self.target.activate(self.console)
        self.power.on()
        self.target.activate(self.shell)


@target_factory.reg_driver
@attr.s(eq=False)
class BootloaderStrategy(RecoveringStrategy):
    """Power on, stop the boot loader at its prompt, boot Linux from it, log in.

    The boot loader is any labgrid driver that implements LinuxBootProtocol and gets to its prompt on
    activation (labgrid's UBootDriver, BareboxDriver): its `boot_command` (e.g. `run bootcmd`, or on
    the virtual board's U-Boot `qfw load` + `zboot`) says how Linux is started, its `bootstring` that
    the kernel was entered. hil/vlab/env-uboot.yaml is the example environment.
    """

    bindings: ClassVar[dict] = {
        "power": "PowerProtocol",
        "console": "ConsoleProtocol",
        "bootloader": "LinuxBootProtocol",
        "shell": "ShellDriver",
    }

    def power_off(self) -> None:
        self.target.deactivate(self.bootloader)
        super().power_off()

    def bring_up(self) -> None:
        self.target.activate(self.console)
        self.power.on()
        self.target.activate(self.bootloader)  # waits for the prompt, interrupting autoboot
        self.bootloader.boot("")  # "": the driver's boot_command
        self.bootloader.await_boot()
        # Its prompt is gone; once booted only the shell is active, the CommandProtocol a Role runs on.
        self.target.deactivate(self.bootloader)
        self.target.activate(self.shell)
