"""A large file copied with the role's own `cp`, as seed 000 measures a USB disk "by copying a large file
and timing it" (方法 1: `echo 3 > /proc/sys/vm/drop_caches; time cp <disk>/test /sdcard/.`).

One command on the role per copy: caches flushed and dropped (untimed: the source must come from its medium),
then the clock (`date +%s%N`) read before cp, after it and after the `sync` that follows: a copy counts once
it is on its destination (seed 001: "add up the real time of sync"). cp prints nothing when it works, so any
line it prints is an error; the copy's size (`stat -c %s`) must be the source's.

The content is compared with the source once per case, after the timed copies (`perf.check`'s verify):
comparing every copy would read both files again. A copy that differs is corrupted data, a FAIL.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure import dd, integrity
from hil.measure.parsing import ascii_int, output_lines, parser
from hil.verdict.errors import ParseError
from hil.verdict.result import Sample

MARK = "hil-cp:"
_TIMING = re.compile(
    r"hil-cp: start=(?P<start>[0-9]+) copied=(?P<copied>[0-9]+) synced=(?P<synced>[0-9]+) bytes=(?P<bytes>[0-9]+)",
    re.ASCII,
)
_EXPECT = re.compile(r"\{ : expect (?P<bytes>[0-9]+) bytes; \}", re.ASCII)
# Forking `date` three times costs milliseconds on a small board: a shorter copy is not timed to 5%.
MIN_SECONDS = 0.1
SOURCE_NAME = "hil-cp-source.bin"
COPY_NAME = "hil-cp.bin"
DIRECTIONS = ("read", "write")  # read: USB disk -> the board's directory; write: the other way


@dataclass(frozen=True)
class FileCopy:
    bytes: int
    cp_seconds: float
    sync_seconds: float

    @property
    def mb_per_s(self) -> float:
        return self.bytes / (self.cp_seconds + self.sync_seconds) / 1e6


def asked(command: str) -> dict[str, int]:
    """The size a `copy_command` expects (its first step says it), as `parse`'s keyword."""
    match = _EXPECT.search(command)
    if match is None:
        raise ValueError(f"not a copy command of hil.measure.cpfile: {command[:200]!r}")
    return {"expected_bytes": int(match["bytes"])}


def copy_command(source: str, copy: str, *, expected_bytes: int) -> str:
    """rm the old copy, flush and drop caches (untimed), then cp and sync timed, then the copy's size."""
    return shell.all_of(
        [
            f": expect {int(expected_bytes)} bytes",  # for the parser's check, read back by `asked`
            shell.cmd("rm", "-f", copy),
            dd.DROP_CACHES,
            "t0=$(date +%s%N)",
            shell.cmd("cp", source, copy) + " 2>&1",
            "t1=$(date +%s%N)",
            "sync",
            "t2=$(date +%s%N)",
            f'echo "{MARK} start=$t0 copied=$t1 synced=$t2 bytes=$(stat -c %s {shell.cmd(copy)})"',
        ]
    )


@parser("cp", asked=asked)
def parse(output: str, *, expected_bytes: int) -> FileCopy:
    """The timing line `copy_command` prints, alone: a line before it (cp's error, busybox date's literal
    %N, a cut-off line), a clock that went back, a copy of another size or too short: ParseError."""
    lines = [line.strip() for line in output_lines(output, "cp") if line.strip()]
    if not lines:
        raise ParseError("cp printed nothing, not even the timing line", raw_output=output)
    match = _TIMING.fullmatch(lines[-1])
    if match is None:
        raise ParseError(f"no timing line after cp (the last line is {lines[-1][:300]!r})", raw_output=output)
    if len(lines) > 1:
        raise ParseError(f"cp printed something (it is silent when it works): {lines[0][:300]!r}", raw_output=output)
    start, copied, synced = (
        ascii_int(match[key], f"clock at {key} (ns)", output) for key in ("start", "copied", "synced")
    )
    if not start <= copied <= synced:
        raise ParseError(f"the clock went back during the copy ({start} -> {copied} -> {synced} ns)", raw_output=output)
    size = ascii_int(match["bytes"], "the copy's size", output)
    if size != expected_bytes:
        raise ParseError(f"the copy holds {size} bytes, its source {expected_bytes}", raw_output=output)
    result = FileCopy(size, (copied - start) / 1e9, (synced - copied) / 1e9)
    if result.cp_seconds + result.sync_seconds < MIN_SECONDS:
        raise ParseError(
            f"the copy took {result.cp_seconds + result.sync_seconds:.4f} s: too short to time (< {MIN_SECONDS} s)",
            raw_output=output,
        )
    return result


def run(role: Role, source: str, copy: str, *, expected_bytes: int, timeout: float) -> Sample:
    """One timed copy: its rate in MB/s, cp's and sync's seconds in the details, the output kept."""
    started = time.time()
    exitcode, output = role.run_status(copy_command(source, copy, expected_bytes=expected_bytes), timeout=timeout)
    duration = time.time() - started
    if exitcode != 0:
        first = next((line.strip() for line in output.splitlines() if line.strip()), "no output")
        raise ParseError(f"the copy failed (exit {exitcode}): {first[:300]}", raw_output=output)
    result = parse(output, expected_bytes=expected_bytes)
    details = {"bytes": result.bytes, "cp_s": result.cp_seconds, "sync_s": result.sync_seconds}
    return Sample(value=result.mb_per_s, started=started, duration_s=duration, raw=output, details=details)


def compare(role: Role, source: str, copy: str, *, timeout: float) -> str:
    """The copy holds its source's bytes, read back from its medium (integrity.compare_files' errors if not);
    one line for the report."""
    role.run(dd.DROP_CACHES, timeout=60)
    integrity.compare_files(role, source, copy, f"{copy}, a copy of {source}: corrupted", timeout)
    return f"{copy} read back from its medium holds {source}'s bytes"


@dataclass
class Copies:
    """The copies of one test case, `source` to `copy` on `role`; the last one's content is verified."""

    role: Role
    source: str
    copy: str
    expected_bytes: int
    timeout: float
    facts: dict[str, Any] = field(default_factory=dict)

    def sample(self) -> Sample:
        return run(self.role, self.source, self.copy, expected_bytes=self.expected_bytes, timeout=self.timeout)

    def verify(self) -> str:
        """After the timed copies: the last copy holds the source's bytes (perf.check's verify)."""
        return compare(self.role, self.source, self.copy, timeout=self.timeout)


@contextmanager
def copies(role: Role, direction: str, *, disk_dir: str, board_dir: str, size_mb: int) -> Iterator[Copies]:
    """Copies of one file of `size_mb` MiB of random data between `board_dir` and `disk_dir` (a mounted USB
    disk): write copies board -> disk, read disk -> board. For a read the source is made in `board_dir`, copied
    to the disk and removed (RAM on a small board holds one file at a time). `board_dir` is cleaned on the way out."""
    if direction not in DIRECTIONS:
        raise ValueError(f"copy direction {direction!r} is neither read nor write")
    expected = size_mb * 1024 * 1024
    timeout = 60.0 + size_mb  # for one copy or compare: a minute, plus a second per MiB (a dead USB 2.0 disk is slower)
    made = f"{board_dir}/{SOURCE_NAME}"
    make = shell.cmd("dd", "if=/dev/urandom", f"of={made}", "bs=1M", f"count={size_mb}") + " 2>&1"
    try:
        role.run(shell.all_of([shell.cmd("mkdir", "-p", board_dir), make]), timeout=timeout)
        facts = {"tool": version(role), "file": f"{size_mb} MiB of random data", "board_dir": where(role, board_dir)}
        if direction == "write":
            yield Copies(role, made, f"{disk_dir}/{COPY_NAME}", expected, timeout, facts)
            return
        on_disk = f"{disk_dir}/{SOURCE_NAME}"
        role.run(shell.all_of([shell.cmd("cp", made, on_disk), "sync", shell.cmd("rm", "-f", made)]), timeout=timeout)
        yield Copies(role, on_disk, f"{board_dir}/{COPY_NAME}", expected, timeout, facts)
    finally:
        if role.suspect_reason is None:  # a board marked for a power cycle loses its RAM anyway
            role.run(shell.quiet(shell.cmd("rm", "-f", made, f"{board_dir}/{COPY_NAME}")), timeout=60)


def where(role: Role, directory: str) -> str:
    """A directory with the filesystem it is on (tmpfs: RAM, so the board's storage is not in the figure)."""
    fs = role.run(shell.cmd("stat", "-f", "-c", "%T", directory) + " 2>/dev/null", check=False).strip()
    return f"{directory} ({fs or 'filesystem unknown'})"


def version(role: Role) -> str:
    """Which cp copies: GNU coreutils, BusyBox or toybox (busybox's cp knows no --version; its banner does)."""
    output = role.run("cp --version 2>&1 | head -n 2", check=False)
    for line in output.splitlines():
        if re.match(r"(?:cp \(GNU coreutils\)|BusyBox|toybox)\b", line.strip()):
            return line.strip()
    return "cp (version unknown)"
