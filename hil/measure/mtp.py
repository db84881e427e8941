"""MTP object transfers with libmtp's command-line tools (mtp-tools), as seed 000 times an MTP copy.

The host copies one large object to the board (mtp-sendfile, "write") or off it (mtp-getfile, "read"),
timed on the host in the command that runs the tool (/proc/uptime before and after: its 10 ms are below 1%
of a transfer of MIN_SECONDS). The progress lines go to a file on the host, not over the console.

Neither tool's exit status can be trusted (mtp-getfile exits 0 after "No devices."): a transfer counts only
when the tool confirmed it, printed no error, reached 100%, and the received file has the size sent.
"""

from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure.dd import DdTransfer
from hil.measure.parsing import ascii_float, ascii_int, output_lines, parser
from hil.verdict.errors import ParseError
from hil.verdict.result import Sample

MIN_SECONDS = 1.0  # /proc/uptime counts hundredths: a shorter transfer is not timed to 1%
MARK = "hil-mtp:"
_MARKER = re.compile(
    r"hil-mtp: exit=(?P<exit>[0-9]+) start=(?P<start>[0-9]+\.[0-9]+) end=(?P<end>[0-9]+\.[0-9]+) "
    r"bytes=(?P<bytes>[0-9]+)",
    re.ASCII,
)
_PROGRESS = re.compile(r"Progress: (?P<done>[0-9]+) of (?P<total>[0-9]+) \((?P<percent>[0-9]+)%\)", re.ASCII)
_SENT = re.compile(r"New file ID: (?P<id>[0-9]+)", re.ASCII)
_GOT = re.compile(r"Getting file/track (?P<id>[0-9]+) to local file .+", re.ASCII)
# libmtp's and the tools' failure lines: "Error 2: ...", "ERROR: Could not close session!", "No devices.",
# "LIBMTP PANIC: ...", "Error sending file.", "Parent folder could not be found, skipping".
_FAILURE = re.compile(r"^(?:Error\b|ERROR\b|No devices\.|LIBMTP PANIC|.*could not be found)", re.ASCII)
_EXPECT = re.compile(r"^: expect (?P<bytes>[0-9]+) bytes$", re.ASCII)
_VERSION = re.compile(r"^libmtp version: (?P<version>\S+)$", re.MULTILINE | re.ASCII)
TOOLS = {"write": "mtp-sendfile", "read": "mtp-getfile"}


@dataclass(frozen=True)
class MtpTransfer(DdTransfer):
    direction: str  # "write" (host -> board) or "read" (board -> host)
    object_id: int


def asked(command: str) -> dict[str, object]:
    """What a transfer command asks (see `transfer_command`), as `parse`'s keywords."""
    direction = next((name for name, tool in TOOLS.items() if tool in command), None)
    expected = [int(match["bytes"]) for part in command.split(";") if (match := _EXPECT.match(part.strip()))]
    if direction is None or not expected:
        raise ValueError(f"not an MTP transfer command: {command!r}")
    return {"direction": direction, "expected_bytes": expected[-1]}


def transfer_command(direction: str, *, local: str, remote: str, expected_bytes: int, log: str) -> str:
    """One command for the host: time the tool, keep its progress off the console, end with the timing line
    (`hil-mtp: exit=.. start=.. end=.. bytes=..`, bytes: the local file's). write: send `local` as object
    `remote` (a name in the storage's root); read: get object id `remote` into `local`."""
    if direction not in TOOLS:
        raise ValueError(f"MTP direction {direction!r} is neither read nor write")
    tool = shell.cmd(TOOLS[direction], *((local, remote) if direction == "write" else (remote, local)))
    q_log, q_local = shlex.quote(log), shlex.quote(local)
    return (
        f": expect {int(expected_bytes)} bytes; "
        "t0=$(cut -d' ' -f1 /proc/uptime); "
        f"{tool} > {q_log} 2>&1; rc=$?; "
        "t1=$(cut -d' ' -f1 /proc/uptime); "
        # Progress lines end in CR: all but the last one are noise on a serial console.
        f"tr '\\r' '\\n' < {q_log} | grep -v '^Progress: '; "
        f"tr '\\r' '\\n' < {q_log} | grep '^Progress: ' | tail -n 1; "
        f"rm -f {q_log}; "
        # The file's size from its inode: reading 256 MiB through a pipe to count it cost ~6 s per sample on
        # the virtual board. A missing file counts 0 bytes.
        f'echo "{MARK} exit=$rc start=$t0 end=$t1 bytes=$(stat -c %s {q_local} 2>/dev/null || echo 0)"'
    )


@parser("mtp", asked=asked)
def parse(output: str, *, direction: str, expected_bytes: int) -> MtpTransfer:
    """One `transfer_command` run: the tool's confirmation, its last progress line, the timing line. An error
    line, a non-zero exit, progress short of 100%, a file of another size or too short a time: ParseError."""
    if direction not in TOOLS:
        raise ValueError(f"MTP direction {direction!r} is neither read nor write")
    tool = TOOLS[direction]
    lines = [line.strip() for line in output_lines(output, tool) if line.strip()]
    for line in lines:
        if _FAILURE.match(line):
            raise ParseError(f"{tool} reported an error: {line[:300]}", raw_output=output)
    if not lines:
        raise ParseError(f"{tool} printed nothing", raw_output=output)
    marker = _MARKER.fullmatch(lines[-1])
    if marker is None:
        raise ParseError(f"the transfer's timing line is missing or cut off: {lines[-1][:300]!r}", raw_output=output)
    exitcode = ascii_int(marker["exit"], "exit status", output)
    if exitcode != 0:
        raise ParseError(f"{tool} exited {exitcode}", raw_output=output)
    confirmation = _SENT if direction == "write" else _GOT
    confirmed = [match for line in lines[:-1] if (match := confirmation.fullmatch(line))]
    if len(confirmed) != 1:
        raise ParseError(f"{tool} did not confirm the transfer exactly once", raw_output=output)
    progress = _PROGRESS.fullmatch(lines[-2]) if len(lines) >= 2 else None
    if progress is None:
        raise ParseError(f"{tool} printed no final progress line", raw_output=output)
    done = ascii_int(progress["done"], "progress bytes", output)
    total = ascii_int(progress["total"], "progress total", output)
    if done != total or progress["percent"] != "100" or total < expected_bytes:
        raise ParseError(f"{tool} stopped at {done} of {total} bytes", raw_output=output)
    copied = ascii_int(marker["bytes"], "local file size", output)
    if copied != expected_bytes:
        raise ParseError(f"the host's file holds {copied} bytes, {expected_bytes} expected", raw_output=output)
    seconds = ascii_float(marker["end"], "end time", output) - ascii_float(marker["start"], "start time", output)
    if seconds < MIN_SECONDS:
        raise ParseError(f"the transfer took {seconds:.2f} s: too short to time with /proc/uptime", raw_output=output)
    return MtpTransfer(copied, seconds, direction, ascii_int(confirmed[0]["id"], "object id", output))


def run(
    host: Role, direction: str, *, local: str, remote: str, expected_bytes: int, timeout: float
) -> tuple[MtpTransfer, Sample]:
    """Run one transfer on the host; the parsed transfer and its sample (MB/s, raw output kept)."""
    command = transfer_command(direction, local=local, remote=remote, expected_bytes=expected_bytes, log=local + ".log")
    started = time.time()
    output = host.run(command, timeout=timeout, check=False)
    duration = time.time() - started
    transfer = parse(output, direction=direction, expected_bytes=expected_bytes)
    details = {"bytes": transfer.bytes, "seconds": round(transfer.seconds, 2)}
    return transfer, Sample(value=transfer.mb_per_s, started=started, duration_s=duration, raw=output, details=details)


def version(role: Role) -> str:
    """libmtp's version as mtp-sendfile prints it (run with no arguments it prints its usage and exits)."""
    output = role.run(shell.cmd(TOOLS["write"]) + " 2>&1 </dev/null", check=False, timeout=60)
    match = _VERSION.search(output)
    return f"libmtp {match['version']}" if match else "libmtp (version unknown)"
