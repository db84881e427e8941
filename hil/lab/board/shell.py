"""Build shell command lines from values without pasting strings: every value is quoted; and what runs them.

`Shell` is what runs commands on a board, as hil.lab.board.background and deploy need it: hil.lab.board.role's
Role is one. They type against it, so role imports them and neither imports role back (no import circle).
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Iterable
from typing import Any, Protocol

from labgrid import Target

# Busybox's line editor truncates input lines near 1 KiB; longer command lines go over in pieces.
MAX_LINE = 600


class Shell(Protocol):
    """A board's shell (hil.lab.board.role.Role): commands with bounded time, and the board's state."""

    name: str
    target: Target

    @property
    def label(self) -> str: ...
    @property
    def power_cycles(self) -> int: ...
    @property
    def suspect_reason(self) -> str | None: ...
    def mark_suspect(self, reason: str) -> None: ...
    def run(self, command: str, *, timeout: float = 60.0, check: bool = True) -> str: ...
    def run_status(self, command: str, *, timeout: float = 60.0) -> tuple[int, str]: ...
    def command_driver(self) -> Any: ...
    def register_background(self, process: Any) -> None: ...
    def unregister_background(self, process: Any) -> None: ...


def cmd(*argv: object) -> str:
    """One command, each argument quoted: cmd("dd", f"if={node}") -> "dd 'if=/dev/sda'"."""
    return shlex.join(str(arg) for arg in argv)


def quote(value: object) -> str:
    """One value as one shell word."""
    return shlex.quote(str(value))


def write(path: str, value: object) -> str:
    """Write one value (plus newline) to a file, as sysfs and configfs attributes want it."""
    return f"printf '%s\\n' {shlex.quote(str(value))} > {shlex.quote(path)}"


def all_of(commands: Iterable[str]) -> str:
    """Run commands in order, stopping at the first failure."""
    return " && ".join(f"{{ {command}; }}" for command in commands)


def quiet(command: str) -> str:
    """Ignore a command's failure and output (cleanup steps that may find nothing to clean)."""
    return f"{{ {command}; }} >/dev/null 2>&1 || true"


def until(attempt: str, timeout_s: float, *, interval_s: float = 0.2, on_timeout: str = "") -> str:
    """Repeat `attempt` every `interval_s` until it succeeds (then exit 0), for `timeout_s` by the board's own
    clock (then run `on_timeout`, say to show what was seen, and exit 1). Bounded by time rather than by a
    count of tries: on a loaded board every try takes longer than its sleep, and a count of tries overran the
    caller's command limit (a board timeout and a power cycle instead of a clear "did not appear")."""
    seconds = max(1, math.ceil(timeout_s))
    last = f"{{ {on_timeout}; }}; exit 1" if on_timeout else "exit 1"
    return (
        f"end=$(( $(date +%s) + {seconds} )); while :; do {{ {attempt}; }} && exit 0; "
        f'[ "$(date +%s)" -lt "$end" ] || {{ {last}; }}; sleep {interval_s:g}; done'
    )
