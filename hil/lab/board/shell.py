"""Build shell command lines from values without pasting strings: every value is quoted."""

from __future__ import annotations

import math
import shlex
from collections.abc import Iterable


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
