"""dd on a file of a mounted filesystem, as seed 001 measures mass storage "with the filesystem involved".

Write: dd into the page cache, then `sync`; the rate is the bytes over dd's time plus the sync's ("add up the
real time of sync", seed 001), both timed on the role in one command line (no console round trip in them).
Read: caches dropped, dd reads the file back; `read_reattached` re-attaches the disk first, as seed 001 does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure import dd
from hil.measure.parsing import ascii_int, output_lines, parser, run_timed, span
from hil.verdict.errors import ParseError
from hil.verdict.measurement import Measurement, Quantity
from hil.verdict.result import Sample

# The line the write command prints after dd: the clock (coreutils `date +%s%N`) before and after sync. A
# clock in nanoseconds since 1970 has 19 digits (since 2001-09-09); fewer is a `date` without %N.
_SYNC = re.compile(r"sync-ns (?P<start>[0-9]{19}) (?P<end>[0-9]{19})", re.ASCII)
# The read_reattached samples' fact: how the host's page cache was kept out of them.
REATTACHED = (
    "the disk re-attached before each read (seed 001): unmounted, off the bus until the host dropped it and on "
    "again, remounted (its seconds: each sample's reattach_s); caches dropped too"
)


@dataclass(frozen=True)
class SyncedWrite:
    bytes: int
    dd_seconds: float
    sync_seconds: float

    @property
    def mb_per_s(self) -> float:
        return self.bytes / (self.dd_seconds + self.sync_seconds) / 1e6


def write_command(path: str, block_size: str, total_mb: int) -> str:
    """rm, flush and drop caches (untimed), then dd into the page cache and a timed sync."""
    count = dd.block_count(block_size, total_mb)
    return shell.all_of(
        [
            shell.cmd("rm", "-f", path),
            dd.DROP_CACHES,
            dd.C_LOCALE + shell.cmd("dd", "if=/dev/zero", f"of={path}", f"bs={block_size}", f"count={count}") + " 2>&1",
            "s=$(date +%s%N)",
            "sync",
            "e=$(date +%s%N)",
            'echo "sync-ns $s $e"',
        ]
    )


def read_command(path: str, block_size: str, total_mb: int) -> str:
    """Buffered, as a program reads a file (the caches are dropped before it: dd.run)."""
    count = dd.block_count(block_size, total_mb)
    return dd.C_LOCALE + shell.cmd("dd", f"if={path}", "of=/dev/null", f"bs={block_size}", f"count={count}")


@parser("dd-sync", asked=dd.asked)
def parse_synced(output: str, *, expected_bytes: int | None) -> SyncedWrite:
    """dd's output (dd.parse's rules) followed by the sync timing line; anything else is a ParseError."""
    lines = [line.rstrip() for line in output_lines(output, "dd + sync")]
    while lines and not lines[-1]:
        lines.pop()
    match = _SYNC.fullmatch(lines[-1]) if lines else None
    if match is None:
        last = lines[-1][:300] if lines else ""
        raise ParseError(f"no sync timing after dd (the last line is {last!r})", raw_output=output)
    try:
        transfer = dd.parse("\n".join(lines[:-1]), expected_bytes=expected_bytes)
    except ParseError as exc:
        raise ParseError(str(exc), raw_output=output) from None
    start = ascii_int(match["start"], "sync start (ns)", output)
    end = ascii_int(match["end"], "sync end (ns)", output)
    # Stamps that both end in zeros came from a coarser clock than nanoseconds: its tick is the resolution.
    resolution = 10 ** min(len(stamp) - len(stamp.rstrip("0")) for stamp in (match["start"], match["end"]))
    return SyncedWrite(
        transfer.bytes, transfer.seconds, span(start, end, resolution=resolution, what="sync (ns)", raw=output) / 1e9
    )


def write(role: Role, path: str, *, block_size: str, total_mb: int, timeout: float = 300) -> Sample:
    """One synced write of `path`: its rate in MB/s, dd's and sync's seconds in the details."""
    output, started, duration = run_timed(role, write_command(path, block_size, total_mb), "dd + sync", timeout=timeout)
    result = parse_synced(output, expected_bytes=dd.total_bytes(block_size, total_mb))
    details = {"dd_s": result.dd_seconds, "sync_s": result.sync_seconds}
    return Sample(value=result.mb_per_s, started=started, duration_s=duration, raw=output, details=details)


def read(role: Role, path: str, *, block_size: str, total_mb: int, timeout: float = 300) -> Sample:
    expected = dd.total_bytes(block_size, total_mb)
    return dd.run(role, read_command(path, block_size, total_mb), expected_bytes=expected, timeout=timeout)


def read_reattached(
    role: Role, path: str, reattach: Callable[[], float], *, block_size: str, total_mb: int, timeout: float = 300
) -> Sample:
    """`read` after `reattach` (hil.lab.usb_gadget.on_link.GadgetOnLink.reattach_disk: the disk unmounted, off the
    bus and on, mounted again), whose seconds go into the details as reattach_s."""
    took = reattach()
    sample = read(role, path, block_size=block_size, total_mb=total_mb, timeout=timeout)
    sample.details["reattach_s"] = round(took, 2)
    return sample


def write_pair(role: Role, path: str, *, block_size: str, total_mb: int, timeout: float = 300) -> Measurement:
    """One synced write as seed 001's pair: `throughput` with the sync's time added (synchronous), and
    `async_throughput` over dd's time alone (asynchronous: what the writer saw before the sync)."""
    synced = write(role, path, block_size=block_size, total_mb=total_mb, timeout=timeout)
    moved = dd.total_bytes(block_size, total_mb)
    values = {
        "throughput": Quantity(synced.value, "MB/s"),
        "async_throughput": Quantity(moved / synced.details["dd_s"] / 1e6, "MB/s"),
    }
    return Measurement(
        values, raw=synced.raw, started=synced.started, duration_s=synced.duration_s, details=synced.details
    )
