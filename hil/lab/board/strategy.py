"""Bring a board to a shell, and bring it back when a test left it broken.

`Role` talks to strategies only through `BoardControl` (boot, power-cycle when suspect or silent, count
boots); a target whose strategy lacks it is refused when the pair is opened. labgrid's ShellStrategy stays
broken once anything fails (`never_retry`); here a hung board costs one power cycle, not the remaining tests.
`RecoveringStrategy` holds that logic once; a board's strategy only says how it gets from power-on to a
shell: `BoardStrategy` (straight into Linux) or `BootloaderStrategy` (stop U-Boot at its prompt, boot).
Another boot flow (fastboot, a USB loader) subclasses `RecoveringStrategy` and implements `bring_up()`.
"""

from __future__ import annotations

import abc
import contextlib
import enum
import http.client
import ssl
import time
from typing import ClassVar, Protocol, runtime_checkable
from urllib.parse import urlparse

import attr
from labgrid.binding import BindingState
from labgrid.driver import SSHDriver
from labgrid.factory import target_factory
from labgrid.step import step
from labgrid.strategy import Strategy, StrategyError

from hil.build import boardview
from hil.build.manifest import Build
from hil.errors import BoardTimeout, LabError, without_passwords
from hil.lab.board.console import console_error


@runtime_checkable
class BoardControl(Protocol):
    """The strategy interface hil relies on (see the module docstring)."""

    power_cycles: int  # power-ons this session
    boot_times_s: list[float]  # power-on to shell, per boot
    suspect_reason: str | None  # set: the next ensure_shell power-cycles instead of probing
    build: Build | None  # the build hil put on the board, checked after each boot (hil.lab.board.provision)
    build_view: str | None  # what the board said of its kernel and command line after its last boot

    def ensure_shell(self) -> None:
        """Return with a shell that answers: boot when off, power-cycle when suspect or silent."""

    def mark_suspect(self, reason: str) -> None:
        """A command on this board timed out or its console closed: do not trust it until power-cycled."""

    def power_cycle(self) -> None:
        """Power off, power on, and bring the board to a shell."""


def missing_board_control(strategy: object) -> list[str]:
    """The BoardControl members `strategy` lacks (empty when it satisfies the interface)."""
    # From the protocol itself, so a member added to it is checked too (build_view was not).
    methods = [name for name, value in vars(BoardControl).items() if callable(value) and not name.startswith("_")]
    return [name for name in [*BoardControl.__annotations__, *methods] if not hasattr(strategy, name)]


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
    # A power switch on the network answers within this or is taken for dead (labgrid's HTTP power backends
    # set no timeout of their own: a switch that stops answering would hang the run for good).
    power_timeout = attr.ib(default=30, validator=attr.validators.instance_of(int))

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        self.stage = "off"  # which part of the boot is running: a failure names it
        self.boot_times_s: list[float] = []
        self.power_cycles = 0
        self.suspect_reason: str | None = None
        self.build: Build | None = None  # what hil put on the board (hil.lab.board.provision): checked per boot
        self.build_view: str | None = None  # what the board said of it after its last boot

    @abc.abstractmethod
    def bring_up(self) -> None:
        """From power off to a logged-in shell; raise on failure (the caller retries, counts and times)."""

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
        self._close_network_sessions()
        self.target.activate(self.power)
        self.switch_power(on=False)
        self._forget_console_output()

    def _close_network_sessions(self) -> None:
        """Close what talks to the board over its network (SSHDriver's control master) while it still answers:
        after the power is gone, ssh waits for a dead peer (a minute and more) before it lets go."""
        for driver in self.target.drivers:
            if isinstance(driver, SSHDriver) and driver.state is BindingState.active:
                with contextlib.suppress(Exception):
                    self.target.deactivate(driver)

    def enter(self, stage: str, driver: object) -> None:
        """Say which part of the boot runs now, and with which driver and resource (for the error)."""
        resource = next((getattr(driver, n) for n in ("port", "serial") if hasattr(driver, n)), None)
        where = f"{type(driver).__name__}" + (f", {_describe(resource)}" if resource is not None else "")
        self.stage = f"{stage} ({where})"

    def switch_power(self, *, on: bool) -> None:
        """Switch the board's power; a switch that refuses or does not answer is a LabError naming it.

        labgrid's HTTP power backends set no timeout, so a switch on HTTP is first asked for its front page
        within `power_timeout` (any HTTP answer, even 401 or 500, means it is alive)."""
        where = getattr(self.power, "port", None) or getattr(self.power, "target", None)
        what = f"{self.target.name}: power switch ({type(self.power).__name__}, {_describe(where)})"
        try:
            _probe_http_switch(self.power, self.power_timeout)
            self.power.on() if on else self.power.off()
        except Exception as exc:
            raise LabError(
                f"{what} did not switch {'on' if on else 'off'}: {type(exc).__name__}: {_one_line(exc)}"
            ) from exc

    def _forget_console_output(self) -> None:
        """Drop what the console read but nobody matched: prompts of the board that was just switched off.

        The ShellDriver's newlines during a boot leave prompts in the expect buffer; the next power-on would
        match one at once and "boot" in 0.1 s while the board is still in its firmware.
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
            self.stage = "power on"
            try:
                self.bring_up()
            except Exception as exc:  # login timeout, console EOF, boot loader silent: another power cycle
                seen = exc if isinstance(exc, LabError) else f"{type(exc).__name__}: {_one_line(exc)}"
                failures.append(f"attempt {attempt}, at {self.stage}: {seen}")
                self.logger.warning("%s: no shell after power-on, at %s (%s)", self.target.name, self.stage, seen)
                continue
            self.boot_times_s.append(time.monotonic() - started)
            self.suspect_reason = None
            self._check_build()
            return
        self.status = Status.unknown
        raise BoardTimeout(
            f"{self.target.name}: no shell after {self.boot_attempts} power cycles:\n  " + "\n  ".join(failures)
        )

    def _check_build(self) -> None:
        """The board runs the build hil put on it, or it is a LabError (not retried: booting again boots the same)."""
        if self.build is None:
            return
        self.stage = "checking the build"
        try:
            release, cmdline = boardview.view("\n".join(self.shell.run_check(boardview.COMMAND, timeout=30)))
        except ValueError as exc:
            raise LabError(f"{self.target.name}: cannot tell which build it booted: {exc}") from None
        self.build_view = boardview.describe(release, cmdline)
        wrong = boardview.problems(self.build, release, cmdline)
        if wrong:
            raise LabError(
                f"{self.target.name} did not boot build {self.build.label}: {'; '.join(wrong)} "
                f"(it says: {self.build_view}): nothing is measured on it"
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
            self.logger.warning("%s: shell does not answer (%s): power cycling", self.target.name, console_error(exc))
        self.power_cycle()


@target_factory.reg_driver
@attr.s(eq=False)
class BoardStrategy(RecoveringStrategy):
    """Power on and log in: a board (or the virtual board) that boots straight into Linux."""

    bindings: ClassVar[dict] = {"power": "PowerProtocol", "console": "ConsoleProtocol", "shell": "ShellDriver"}

    def bring_up(self) -> None:
        self.enter("console", self.console)
        self.target.activate(self.console)
        self.enter("power on", self.power)
        self.switch_power(on=True)
        self.boot_linux()
        self.enter("login", self.shell)
        self.target.activate(self.shell)

    def boot_linux(self) -> None:
        """Between power-on and the login prompt: nothing, the board boots straight into Linux."""


@target_factory.reg_driver
@attr.s(eq=False)
class BootloaderStrategy(BoardStrategy):
    """Power on, stop the boot loader at its prompt, boot Linux from it, log in.

    The boot loader is any LinuxBootProtocol driver that gets to its prompt on activation (UBootDriver,
    BareboxDriver); hil/vlab/env-uboot.yaml is the example environment.
    """

    bindings: ClassVar[dict] = {**BoardStrategy.bindings, "bootloader": "LinuxBootProtocol"}

    bootloader_version: str | None = None  # its own words at its prompt (U-Boot's `version`), per boot

    def power_off(self) -> None:
        self.target.deactivate(self.bootloader)
        super().power_off()

    def _ask_version(self) -> str | None:
        """The boot loader's `version` answer, first line; None when it has no such command."""
        try:
            lines = self.bootloader.run_check("version", timeout=10)
        except Exception as exc:  # a boot loader without `version`: not a reason to power-cycle
            self.logger.info("%s: no boot loader version (%s)", self.target.name, exc)
            return None
        return next((line.strip() for line in lines if line.strip()), None)

    def boot_linux(self) -> None:
        self.enter("boot loader prompt", self.bootloader)
        self.target.activate(self.bootloader)  # waits for the prompt, interrupting autoboot
        self.bootloader_version = self._ask_version()
        self.enter("boot loader booting Linux", self.bootloader)
        self.bootloader.boot("")  # "": the driver's boot_command
        self.bootloader.await_boot()
        # Its prompt is gone; once booted only the shell is active, the CommandProtocol a Role runs on.
        self.target.deactivate(self.bootloader)


def _describe(resource: object) -> str:
    """A power resource as an error names it: its model, host and outlet where it has them."""
    if resource is None:
        return "no resource"
    names = ("model", "host", "port", "index")
    fields = [f"{name}={getattr(resource, name)}" for name in names if hasattr(resource, name)]
    return without_passwords(" ".join(fields)) or type(resource).__name__


def _one_line(exc: BaseException, limit: int = 300) -> str:
    text = without_passwords(console_error(exc).split(": ", 1)[-1])
    return text if len(text) <= limit else text[: limit - 3] + "..."


class SwitchSilent(TimeoutError):
    """A power switch on the network accepted the connection (or not) but gave no HTTP answer in time."""


def _probe_http_switch(driver: object, timeout: float) -> None:
    """For a power driver whose backend speaks HTTP (labgrid's NetworkPowerDriver models built on requests):
    one HEAD request to the switch within `timeout`, or SwitchSilent."""
    backend, resource = getattr(driver, "backend", None), getattr(driver, "port", None)
    host = getattr(resource, "host", None)
    if backend is None or "requests" not in vars(backend) or not isinstance(host, str):
        return
    url = urlparse(host if "//" in host else f"http://{host}")
    if url.scheme not in ("http", "https") or not url.hostname:
        return
    port = url.port or getattr(backend, "PORT", None) or (443 if url.scheme == "https" else 80)
    connection = (
        http.client.HTTPSConnection(url.hostname, port, timeout=timeout, context=ssl._create_unverified_context())
        if url.scheme == "https"  # unverified: a lab's self-signed PDU
        else http.client.HTTPConnection(url.hostname, port, timeout=timeout)
    )
    try:
        connection.request("HEAD", "/")
        connection.getresponse()
    except TimeoutError as exc:
        raise SwitchSilent(f"no HTTP answer from {url.hostname}:{port} within {timeout:g} s") from exc
    except OSError as exc:
        raise SwitchSilent(f"{url.hostname}:{port}: {exc}") from exc
    finally:
        connection.close()
