"""Errors the framework raises for things a user can fix: bad configuration, a missing tool, a dead board."""

from __future__ import annotations

import re


def without_passwords(text: str) -> str:
    """A URL may carry its password (http://admin:1234@pdu, postgresql://hil:secret@db/lab): never into a report,
    a stored run's command or a message. The password ends at the next @ on its line, spaces and all (SQLAlchemy
    leaves a space in one unquoted), never past a /."""
    return re.sub(r"(//[^:/@\s]+):[^@/\n]*@", r"\1:***@", text)


class HilError(Exception):
    """Base of every error hil raises on purpose."""


class InventoryError(HilError):
    """boards.yaml (or a file it names) is malformed: says which file, which key and what is wrong."""

    def __init__(self, path: str, key: str, problem: str) -> None:
        self.path, self.key, self.problem = path, key, problem
        super().__init__(f"{path}: {key}: {problem}" if key else f"{path}: {problem}")


class VlabImageError(HilError):
    """The virtual lab image cannot be built on this machine (missing package, kernel, module)."""


class LabError(HilError):
    """A board or link does not behave: no shell, no enumeration, wrong link speed, command failed."""


class Unavailable(HilError):
    """A board lacks what a case asks of it (a kernel parameter, a file system, a BAR mapping, a tuning knob), as
    the board itself says: the plugin skips the case with this message, which names the board and what it lacks."""


class BoardTimeout(LabError):
    """A board stopped answering within its time limit; the next test power-cycles it."""


class CommandFailed(LabError):
    """A command on a role exited non-zero; carries its output verbatim."""

    def __init__(self, role: str, command: str, exitcode: int, output: str) -> None:
        self.role, self.command, self.exitcode, self.output = role, command, exitcode, output
        super().__init__(f"{role}: `{command}` exited {exitcode}:\n{output}")
