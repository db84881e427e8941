"""One side of a board pair (host, device, rc, ep): commands on a labgrid target, with bounded time."""

from __future__ import annotations

import secrets
import shlex
import subprocess
import time
from collections.abc import Iterable, Iterator
from typing import Any

import pexpect
from labgrid import Target
from labgrid.exceptions import NoDriverFoundError, NoStrategyFoundError
from labgrid.protocol import CommandProtocol

from hil.errors import BoardTimeout, CommandFailed, LabError
from hil.lab.board import bound, deploy, shell
from hil.lab.board.background import Background
from hil.lab.board.console import console_error
from hil.lab.board.deploy import Deployment
from hil.lab.board.strategy import BoardControl, missing_board_control


class Role:
    def __init__(self, name: str, target: Target, pair: str) -> None:
        self.name = name
        self.target = target
        self.pair = pair
        self.backgrounds: list[Background] = []  # started and not yet stopped

    @property
    def label(self) -> str:
        return f"{self.pair}/{self.name} ({self.target.name})"

    def __repr__(self) -> str:
        return f"Role({self.label})"

    @property
    def deployment(self) -> Deployment | None:
        """hil's programs on this role's target (every role on one target shares them: hil.lab.board.deploy)."""
        return deploy.on(self.target)

    @deployment.setter
    def deployment(self, value: Deployment | None) -> None:
        deploy.remember(self.target, value)

    @property
    def strategy(self) -> BoardControl | None:
        """The target's strategy (None for targets without one, such as the lab PC)."""
        return strategy_of(self.target)

    @property
    def power_cycles(self) -> int:
        return strategy.power_cycles if (strategy := self.strategy) is not None else 0

    def ensure_ready(self) -> None:
        """Boot the target or bring it back (power cycle) before a test uses it."""
        if (strategy := self.strategy) is not None:
            strategy.ensure_shell()

    def background(self, command: str, **options: Any) -> Background:
        """A command that runs while the test goes on; use it as a context manager (see Background)."""
        return Background(self, command, **options)

    def register_background(self, process: Background) -> None:
        self.backgrounds.append(process)

    def unregister_background(self, process: Background) -> None:
        if process in self.backgrounds:
            self.backgrounds.remove(process)

    def stop_backgrounds(self) -> None:
        """Stop whatever a test left running here (its `with` block was skipped by a hard interrupt)."""
        for process in list(self.backgrounds):
            process.stop(quiet=True)

    def run(self, command: str, *, timeout: float = 60.0, check: bool = True) -> str:
        """Run a shell command line built with `hil.lab.shell`; return stdout and stderr as one text."""
        exitcode, output = self.run_status(command, timeout=timeout)
        if check and exitcode != 0:
            raise CommandFailed(self.label, command, exitcode, output)
        return output

    def run_status(self, command: str, *, timeout: float = 60.0) -> tuple[int, str]:
        timeout, limit_text = bound.limit(timeout)
        line = command if len(command) <= shell.MAX_LINE else self._stage(command, timeout)
        if self.deployment is not None:
            # hil's deployed programs first on PATH, for this command and what it starts (each command is a
            # shell of its own under labgrid's ShellDriver and SSHDriver: an `export` would not last).
            line = f'PATH={shlex.quote(self.deployment.bin_dir)}:"$PATH"; {line}'
        driver = self.command_driver()
        started = time.monotonic()
        try:
            stdout, stderr, exitcode = driver.run(line, timeout=timeout)
        except (pexpect.TIMEOUT, subprocess.TimeoutExpired) as exc:
            self.mark_suspect(f"`{command}` timed out")
            raise BoardTimeout(
                f"{self.label}: no answer to `{command}` after {time.monotonic() - started:.0f} s ({limit_text})"
            ) from exc
        except (pexpect.EOF, ConnectionError) as exc:  # the far end is gone: a crashed emulator, a dead ser2net
            self.mark_suspect("console closed")
            raise BoardTimeout(
                f"{self.label}: console closed while running `{command}` ({console_error(exc)})"
            ) from exc
        return exitcode, "\n".join([*stdout, *stderr])

    def command_driver(self) -> CommandProtocol:
        # A board with a boot loader has two: UBootDriver and ShellDriver. Booted, only the shell is active.
        try:
            return self.target.get_active_driver("CommandProtocol")
        except NoDriverFoundError:
            return self.target.get_driver("CommandProtocol")

    def read(self, path: str, *, timeout: float = 30.0) -> str:
        return self.run(shell.cmd("cat", path), timeout=timeout).strip()

    def _stage(self, command: str, timeout: float) -> str:
        """Copy a long script to the target in short lines; return the line that runs and removes it."""
        path = f"/tmp/.hil-{secrets.token_hex(4)}.sh"
        head, tail = "printf %s ", f" >> {path}"
        # Cut by quoted length: quoting turns each ' into 5 characters, and a line over shell.MAX_LINE would be
        # staged again, endlessly.
        for chunk in _quoted_chunks(command, shell.MAX_LINE - len(head) - len(tail)):
            self.run(head + chunk + tail, timeout=timeout)
        return f"sh {path}; rc=$?; rm -f {path}; exit $rc"

    @property
    def suspect_reason(self) -> str | None:
        """Why the next `ensure_ready` will power-cycle this target (None: its console is trusted)."""
        return strategy.suspect_reason if (strategy := self.strategy) is not None else None

    def mark_suspect(self, reason: str) -> None:
        """Have the next `ensure_ready` power-cycle this target instead of trusting its console."""
        if (strategy := self.strategy) is not None:
            strategy.mark_suspect(f"{self.label}: {reason}")


def one_per_board(roles: Iterable[Role]) -> list[Role]:
    """The first of `roles` on each board (labgrid target): the virtual lab's host and device roles are one board."""
    distinct: dict[int, Role] = {}
    for role in roles:
        distinct.setdefault(id(role.target), role)
    return list(distinct.values())


def strategy_of(target: Target) -> BoardControl | None:
    """The target's strategy, checked against BoardControl; None when the target has no strategy."""
    try:
        strategy = target.get_strategy()
    except NoStrategyFoundError:
        return None
    missing = missing_board_control(strategy)
    if missing:
        raise LabError(
            f"{target.name}: strategy {type(strategy).__name__} lacks what hil needs from a board strategy "
            f"({', '.join(missing)}); use hil.lab.strategy.BoardStrategy or BootloaderStrategy, or subclass "
            "RecoveringStrategy (see hil/lab/strategy.py)"
        )
    return strategy


def _quoted_chunks(text: str, limit: int) -> Iterator[str]:
    """Consecutive pieces of text, each shell-quoted and at most `limit` characters long."""
    start, length = 0, 2  # the enclosing quotes
    for index, char in enumerate(text):
        width = len("'\"'\"'") if char == "'" else 1
        if length + width > limit:
            yield shlex.quote(text[start:index])
            start, length = index, 2
        length += width
    if start < len(text):
        yield shlex.quote(text[start:])
