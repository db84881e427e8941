"""Block-device throughput with coreutils dd, as the Rockchip and OMAP guides measure it.

Builds the command, runs it on a role, parses dd's summary line into bytes and seconds. The rate is
computed from those two numbers (dd's own printed rate is rounded to two digits).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from hil.lab import shell
from hil.lab.role import Role
from hil.verdict.errors import ParseError
from hil.verdict.result import Sample

DROP_CACHES = "sync && echo 3 > /proc/sys/vm/drop_caches"

# coreutils: "134217728 bytes (134 MB, 128 MiB) copied, 1.07113 s, 125 MB/s"; also "512 bytes copied, ..."
# and "1 byte copied, 3.372e-05 s, ..." (see tests/data/dd).
_SUMMARY = re.compile(r"^(?P<bytes>\d+) bytes? .*copied, (?P<seconds>[0-9.]+(?:e[-+]?\d+)?) s, ", re.MULTILINE)
# "dd: error writing '/dev/sda': ...", "/usr/bin/dd: fsync failed for ...": dd still prints a summary for
# the part that went through, but that is no measurement. Warnings ("dd: warning: partial read") are.
_ERROR = re.compile(r"^(?:\S*/)?dd: (?!warning:).*$", re.MULTILINE)
_BLOCK_SIZE = re.compile(r"^(?P<number>\d+)(?P<unit>[KMG]?)$")


@dataclass(frozen=True)
class DdTransfer:
    bytes: int
    seconds: float

    @property
    def mb_per_s(self) -> float:
        return self.bytes / self.seconds / 1e6


def parse(output: str) -> DdTransfer:
    """Parse dd's summary; anything else (an I/O error, a short copy of 0 bytes) is a ParseError."""
    error = _ERROR.search(output)
    if error is not None:
        raise ParseError(f"dd reported an error: {error.group(0)}", raw_output=output)
    match = _SUMMARY.search(output)
    if match is None:
        raise ParseError("dd printed no transfer summary", raw_output=output)
    transfer = DdTransfer(int(match["bytes"]), float(match["seconds"]))
    if transfer.bytes == 0 or transfer.seconds <= 0:
        raise ParseError("dd transferred nothing", raw_output=output)
    return transfer


def block_bytes(block_size: str) -> int:
    match = _BLOCK_SIZE.match(block_size.upper())
    if match is None:
        raise ValueError(f"block size {block_size!r} is not a number with an optional K, M or G suffix")
    return int(match["number"]) * 1024 ** " KMG".index(match["unit"] or " ")


def _count(block_size: str, total_mb: int) -> int:
    return max(1, total_mb * 1024 * 1024 // block_bytes(block_size))


def read_command(node: str, block_size: str, total_mb: int) -> str:
    count = _count(block_size, total_mb)
    return shell.cmd("dd", f"if={node}", "of=/dev/null", f"bs={block_size}", f"count={count}", "iflag=direct")


def write_command(node: str, block_size: str, total_mb: int) -> str:
    count = _count(block_size, total_mb)
    return shell.cmd(
        "dd", "if=/dev/zero", f"of={node}", f"bs={block_size}", f"count={count}", "oflag=direct", "conv=fsync"
    )


def run(role: Role, command: str, *, timeout: float) -> Sample:
    """Drop caches, run one dd, return its rate in MB/s with the raw output kept."""
    role.run(DROP_CACHES, timeout=60)
    started = time.time()
    exitcode, output = role.run_status(command, timeout=timeout)
    duration = time.time() - started
    if exitcode != 0:
        raise ParseError(f"dd exited {exitcode}", raw_output=output)
    return Sample(value=parse(output).mb_per_s, started=started, duration_s=duration, raw=output)


def read(role: Role, node: str, *, block_size: str, total_mb: int, timeout: float = 300) -> Sample:
    return run(role, read_command(node, block_size, total_mb), timeout=timeout)


def write(role: Role, node: str, *, block_size: str, total_mb: int, timeout: float = 300) -> Sample:
    return run(role, write_command(node, block_size, total_mb), timeout=timeout)


def version(role: Role) -> str:
    """First line of `dd --version`: which dd measured (coreutils prints rates, busybox does not)."""
    output = role.run("dd --version 2>&1 | head -n 1", check=False)
    return output.strip() or "dd (version unknown)"
