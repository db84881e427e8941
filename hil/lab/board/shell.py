"""Build shell command lines from values without pasting strings: every value is quoted."""

from __future__ import annotations

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
