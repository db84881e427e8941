"""Several files and commands of a board read with ONE shell command (on a serial console every command is a
round trip), each output under a header line of its own (`@@hil TAG NAME`): `script` builds it, `parse` splits
it, each section's parser checks it. So are read the per-CPU load (/proc/stat) and the operating point around
each sample (`with_board_state`), and the diagnosis' counters around its transfers (hil.diagnose).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hil.lab.board import shell
from hil.measure import cpuload, operating_point
from hil.measure.around import around
from hil.verdict.errors import ParseError

if TYPE_CHECKING:
    from hil.lab.board.role import Role

SECTION = "@@hil "  # a section's header line: the marker, the snapshot's tag, the file's path or command's name
PROC_STAT, OPERATING_POINT = "/proc/stat", "operating-point"


def script(tag: str, files: Sequence[str] = (), commands: Mapping[str, str] | None = None) -> str:
    """One command printing each of `files` (a glob in a path reads every file it finds) under "TAG PATH",
    then each command's output under "TAG NAME"; commands run after the files (the operating point's cd's)."""
    # Only the glob's `*` is left to the shell: every other character of a path is quoted (a disk name the board
    # printed becomes part of one).
    paths = " ".join("*".join(shell.quote(part) if part else "" for part in path.split("*")) for path in files)
    header = shell.quote(f"{SECTION}{tag} ")
    parts = [f'for f in {paths}; do echo {header}"$f"; cat "$f" 2>/dev/null; done'] if files else []
    parts += [f"echo {shell.quote(f'{SECTION}{tag} {name}')}; {command}" for name, command in (commands or {}).items()]
    return "; ".join(parts)


def parse(text: str, tag: str) -> dict[str, str]:
    """The sections of `tag` in `script`'s output (several may be joined in `text`): path or name -> its text."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(SECTION):
            found, _, name = line.removeprefix(SECTION).partition(" ")
            current = sections.setdefault(name.strip(), []) if found == tag else None
        elif current is not None:
            current.append(line)
    if not sections:
        raise ParseError(f"the snapshot printed none of its {tag!r} sections", text)
    return {name: "\n".join(lines) for name, lines in sections.items()}


COMMAND = script("state", commands={PROC_STAT: "cat /proc/stat", OPERATING_POINT: operating_point.SCRIPT})
State = tuple[dict[str, tuple[int, ...]], operating_point.OperatingPoint]


def parse_state(text: str) -> State:
    """/proc/stat's counters and the operating point from COMMAND's output; each part checked by its parser."""
    sections = parse(text, "state")
    try:
        return cpuload.parse_stat(sections.get(PROC_STAT, "")), operating_point.parse(sections.get(OPERATING_POINT, ""))
    except ParseError as exc:  # the report shows the whole output, not the part that failed
        raise ParseError(f"board state: {exc}", text) from exc


def read(role: Role) -> State:
    return parse_state(role.run(COMMAND, timeout=30))


def with_board_state(role: Role, sample: Callable[[], Any]) -> Callable[[], Any]:
    """`sample`, with `role`'s per-CPU load during it (`observed.cpu_load`, and the busiest core as the tool's
    `cpu_busiest` quantity) and what moved of its operating point (`observed.operating_point`)."""

    def after(before: State) -> dict[str, Any]:
        stat, point = read(role)
        return {
            "cpu_load": cpuload.load(role, before[0], stat),
            "operating_point": operating_point.change(role, before[1], point),
        }

    return cpuload.with_busiest(around(sample, lambda: read(role), after))
