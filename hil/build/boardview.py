"""The board's own view of what it booted, compared with the build hil put on it.

After every boot hil asks the board `uname -r` and its kernel command line. The command line carries
`hil.build=NAME` (hil.build.manifest appends it), so a board that booted something else (a stale image, a
boot loader that fell back to another kernel) says so itself, whatever its kernel release.
"""

from __future__ import annotations

from hil.build.manifest import RESERVED_ARG, Build

COMMAND = "uname -r; cat /proc/cmdline"


def view(output: str) -> tuple[str, str]:
    """(kernel release, command line) from COMMAND's output."""
    lines = [line.strip() for line in output.strip().splitlines()]
    if len(lines) != 2 or not lines[0]:
        raise ValueError(f"`{COMMAND}` printed {len(lines)} lines, not a release and a command line: {output!r}")
    return lines[0], lines[1]


def describe(release: str, cmdline: str) -> str:
    return f"kernel {release}; /proc/cmdline: {cmdline}"


def problems(build: Build, release: str, cmdline: str) -> list[str]:
    """Why the board is not running `build` (empty: it is)."""
    found = []
    if build.kernel_release is not None and release != build.kernel_release:
        found.append(f"it runs kernel {release}, the build's is {build.kernel_release}")
    words = cmdline.split()
    said = [word.removeprefix(RESERVED_ARG) for word in words if word.startswith(RESERVED_ARG)]
    if said != [build.name]:
        found.append(
            f"its command line names build {said[-1]!r}" if said else "its command line names no build (hil.build=)"
        )
    missing = [arg for arg in build.kernel_args if arg not in words]
    if missing and said == [build.name]:
        found.append(f"its command line lacks {' '.join(missing)}")
    return found
