"""Errors the framework raises for things a user can fix: bad configuration, a missing tool, a dead board."""

from __future__ import annotations

import errno
import re
from pathlib import Path


def without_passwords(text: str) -> str:
    """A URL may carry its password (http://admin:1234@pdu, postgresql://hil:secret@db/lab, postgresql://:pw@db,
    ...?password=secret): never into a report, a stored run's command or a message. The password ends at its
    word's last @ (a / or an @ in it, as written unquoted), else at the next @ on its line (SQLAlchemy leaves a
    space in one unquoted); a password= parameter at the next & or space."""
    text = re.sub(r"(//[^:/@\s]*):(?:\S*@|[^@\n]*?@)", r"\1:***@", text)
    return re.sub(r"([?&]password=)[^&\s]*", r"\1***", text, flags=re.IGNORECASE)


def cannot_write(path: Path, exc: OSError) -> str:
    """A failed write of an output file, in one line: the path and why (a FIFO nobody reads is ENXIO)."""
    why = "a FIFO or device nobody reads" if exc.errno == errno.ENXIO else exc.strerror or str(exc)
    return f"{path}: cannot be written: {why}"


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
