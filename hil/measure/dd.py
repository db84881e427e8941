"""Block-device throughput with coreutils dd, as the Rockchip and OMAP guides measure it.

The rate is computed from dd's summary's bytes and seconds (its own printed rate is rounded to two digits).
What dd says it copied must be what it was asked to copy: a short transfer that exits 0 is no measurement.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure.parsing import ascii_float, ascii_int, output_lines, parser, run_timed
from hil.verdict.errors import ParseError
from hil.verdict.result import Sample

DROP_CACHES = "sync && echo 3 > /proc/sys/vm/drop_caches"
# dd's summary is localised (a decimal comma in de_DE): the parser reads the C locale's only.
C_LOCALE = "LC_ALL=C "

# coreutils 9.1, one line each (see tests/data/dd): "134217728 bytes (134 MB, 128 MiB) copied, 1.07113 s,
# 125 MB/s"; "1000 bytes (1.0 kB) copied, ..."; "512 bytes copied, ..."; "1 byte copied, 3.372e-05 s, ...".
# The seconds are taken loosely here and then checked strictly by ascii_float ("1.2.3" is an error).
_SUMMARY = re.compile(
    r"(?P<bytes>[0-9]+) bytes? (?:\([0-9.]+ [kMGTPEZYRQ]?B(?:, [0-9.]+ [KMGTPEZYRQ]?iB)?\) )?copied, "
    r"(?P<seconds>[0-9][0-9.e+-]*) s, (?:(?P<rate>[0-9.]+) (?P<prefix>[kMGTPEZYRQ]?)|Infinity )B/s",
    re.ASCII,
)
_RECORDS = re.compile(r"[0-9]+\+[0-9]+ records (?P<which>in|out)", re.ASCII)
# "dd: error writing '/dev/sda': ...", "/usr/bin/dd: fsync failed for ...": dd still prints a summary for
# the part that went through, but that is no measurement. Warnings ("dd: warning: partial read") are.
_ERROR = re.compile(r"(?:\S*/)?dd: (?!warning:)")
_BLOCK_SIZE = re.compile(r"^(?P<number>[0-9]+)(?P<unit>[KMG]?)$", re.ASCII)
MIN_SECONDS = 1e-9  # dd's clock counts nanoseconds: a shorter time is no timing
SI_PREFIX = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18, "Z": 1e21, "Y": 1e24}
# dd prints its seconds with %g (6 significant digits) and its rate from the unrounded clock: the rate
# computed from the printed seconds differs from dd's by up to 5e-6 of it, before dd's own rounding.
SECONDS_PRECISION = 1e-5


@dataclass(frozen=True)
class DdTransfer:  # bytes in seconds; other tools' transfers extend it
    bytes: int
    seconds: float

    @property
    def mb_per_s(self) -> float:
        return self.bytes / self.seconds / 1e6


def asked(command: str) -> dict[str, int | None]:
    """What a dd command line asks to copy, as `parse`'s keyword: bs*count, or None without a count."""
    args = dict(arg.split("=", 1) for arg in shlex.split(command) if "=" in arg)
    return {"expected_bytes": block_bytes(args.get("bs", "512")) * int(args["count"]) if "count" in args else None}


@parser("dd", asked=asked)
def parse(output: str, *, expected_bytes: int | None) -> DdTransfer:
    """The transfer dd's output (stdout and stderr) ends with: a complete summary after its "records in/out"
    lines (progress lines and SIGUSR1 summaries come before it; a cut-off one never falls back to an earlier
    one), of `expected_bytes` (bs*count; None only for a dd without a count). Error lines: ParseError."""
    lines = [line.rstrip() for line in output_lines(output, "dd")]
    for line in lines:
        if _ERROR.match(line):
            raise ParseError(f"dd reported an error: {line[:300]}", raw_output=output)
    lines = [line for line in lines if line]
    if not any(" copied, " in line for line in lines):
        raise ParseError("dd printed no transfer summary", raw_output=output)
    match = _SUMMARY.fullmatch(lines[-1])
    if match is None:
        raise ParseError(f"dd's output does not end with a complete summary: {lines[-1][:300]!r}", raw_output=output)
    records = [_RECORDS.fullmatch(line) for line in lines[-3:-1]]
    if len(records) != 2 or not all(records) or [r["which"] for r in records if r] != ["in", "out"]:
        raise ParseError("dd's summary does not follow its records in/out lines", raw_output=output)
    copied = ascii_int(match["bytes"], "dd's byte count", output)
    seconds = ascii_float(match["seconds"], "dd's seconds", output)
    if expected_bytes is not None and copied != expected_bytes:
        raise ParseError(
            f"dd copied {copied} bytes of the {expected_bytes} asked for (a short transfer)", raw_output=output
        )
    if copied == 0 or seconds < MIN_SECONDS:
        raise ParseError(f"dd copied {copied} bytes in {seconds:g} s: no transfer to time", raw_output=output)
    _check_printed_rate(match, copied / seconds, output)
    return DdTransfer(copied, seconds)


def _check_printed_rate(match: re.Match[str], computed: float, raw: str) -> None:
    """dd's own rate (rounded to nearest in its last printed digit) must be bytes / seconds: a digit
    changed in either figure (a garbled console) would otherwise give a rate dd itself contradicts."""
    if match["rate"] is None or match["prefix"] not in SI_PREFIX:
        raise ParseError(f"dd printed a rate of {match[0].rsplit(', ', 1)[1]!r} for {computed:g} B/s", raw_output=raw)
    printed = ascii_float(match["rate"], "dd's rate", raw)
    unit = SI_PREFIX[match["prefix"]]
    decimals = len(match["rate"].partition(".")[2])
    allowed = 0.5 * 10**-decimals * unit + SECONDS_PRECISION * computed
    if abs(computed - printed * unit) > allowed:
        raise ParseError(
            f"dd's own rate {match['rate']} {match['prefix']}B/s contradicts its bytes / seconds = {computed:.4g} B/s",
            raw_output=raw,
        )


def block_bytes(block_size: str) -> int:
    match = _BLOCK_SIZE.match(block_size.upper())
    if match is None:
        raise ValueError(f"block size {block_size!r} is not a number with an optional K, M or G suffix")
    return int(match["number"]) * 1024 ** " KMG".index(match["unit"] or " ")


def block_count(block_size: str, total_mb: int) -> int:
    return max(1, total_mb * 1024 * 1024 // block_bytes(block_size))


def total_bytes(block_size: str, total_mb: int) -> int:
    """What a dd of `total_mb` MiB in `block_size` blocks copies (whole blocks, at least one)."""
    return block_bytes(block_size) * block_count(block_size, total_mb)


def read_command(node: str, block_size: str, total_mb: int, *, into: str = "/dev/null") -> str:
    count = block_count(block_size, total_mb)
    return C_LOCALE + shell.cmd("dd", f"if={node}", f"of={into}", f"bs={block_size}", f"count={count}", "iflag=direct")


def write_command(node: str, block_size: str, total_mb: int, *, source: str = "/dev/zero") -> str:
    count = block_count(block_size, total_mb)
    return C_LOCALE + shell.cmd(
        "dd", f"if={source}", f"of={node}", f"bs={block_size}", f"count={count}", "oflag=direct", "conv=fsync"
    )


def run(role: Role, command: str, *, expected_bytes: int, timeout: float) -> Sample:
    """Drop caches, run one dd, return its rate in MB/s with the raw output kept."""
    role.run(DROP_CACHES, timeout=60)
    output, started, duration = run_timed(role, command, "dd", timeout=timeout)
    transfer = parse(output, expected_bytes=expected_bytes)
    return Sample(value=transfer.mb_per_s, started=started, duration_s=duration, raw=output)


def read(role: Role, node: str, *, block_size: str, total_mb: int, timeout: float = 300) -> Sample:
    expected = total_bytes(block_size, total_mb)
    return run(role, read_command(node, block_size, total_mb), expected_bytes=expected, timeout=timeout)


def write(role: Role, node: str, *, block_size: str, total_mb: int, timeout: float = 300) -> Sample:
    expected = total_bytes(block_size, total_mb)
    return run(role, write_command(node, block_size, total_mb), expected_bytes=expected, timeout=timeout)


def version(role: Role) -> str:
    """First line of `dd --version`: which dd measured (coreutils prints rates, busybox does not)."""
    return role.run("dd --version 2>&1 | head -n 1", check=False).strip() or "dd (version unknown)"
