"""Buffered sequential reads of a block device with `hdparm -t`, the raw-read check seed 001 runs beside dd
(`hdparm -tT /dev/sdi`: "Timing buffered disk reads:  40 MB in  3.05 seconds =  13.13 MB/sec").

hdparm reads the device from the start in 2 MiB requests for about 3 seconds. `-T` is left out: it times
copies out of the page cache, not the link. hdparm's "MB" is a MiB; the figure is its printed rate (from the
unrounded time), checked against its MiB count and its printed seconds, given in MB/s like dd's.
"""

from __future__ import annotations

import re
import shlex

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure.dd import C_LOCALE, DROP_CACHES, DdTransfer
from hil.measure.parsing import ascii_float, ascii_int, output_lines, parser, run_timed
from hil.verdict.errors import ParseError
from hil.verdict.result import Sample

MIB = 1 << 20
# hdparm.c 9.65: " Timing %s disk reads" then ": %3u MB in %5.2f seconds = %6.2f MB/sec" (kB/sec below 1 MB/s)
_TIMING = re.compile(
    r" Timing (?:buffered|O_DIRECT) disk reads: +(?P<mib>[0-9]+) MB in +(?P<seconds>[0-9]+\.[0-9]{2}) seconds"
    r" = +(?P<rate>[0-9]+\.[0-9]{2}) (?P<unit>MB|kB)/sec",
    re.ASCII,
)
RATE_UNIT = {"MB": MIB, "kB": 1024}  # bytes per second of one printed unit
HdparmRead = DdTransfer


def asked(command: str) -> dict[str, str]:
    """The device an `hdparm -t DEVICE` command line reads, as `parse`'s keyword."""
    return {"device": shlex.split(command)[-1]}


@parser("hdparm", asked=asked)
def parse(output: str, *, device: str) -> HdparmRead:
    """hdparm's output for one device: its name line (`/dev/sda:`) and one timing line, nothing else (an error
    or warning line, a second device or a second timing is no measurement of this one)."""
    lines = [line for line in output_lines(output, "hdparm") if line.strip()]
    if not lines or lines[0] != f"{device}:":
        raise ParseError(f"hdparm's output does not start with the device asked, {device}:", raw_output=output)
    timing = _TIMING.fullmatch(lines[-1])
    if len(lines) != 2 or timing is None:
        raise ParseError("hdparm printed more or other than one timing of the device", raw_output=output)
    mib = ascii_int(timing["mib"], "hdparm's MB", output)
    printed_s = ascii_float(timing["seconds"], "hdparm's seconds", output)
    rate = ascii_float(timing["rate"], "hdparm's rate", output)
    if mib == 0 or rate == 0:
        raise ParseError(f"hdparm read {mib} MB at {rate:g}: nothing to time", raw_output=output)
    per_unit = RATE_UNIT[timing["unit"]]
    # The rate comes from the unrounded time; the seconds printed are that time to 10 ms.
    fastest, slowest = (mib * MIB / ((rate + edge) * per_unit) for edge in (0.005, -0.005))
    if not fastest - 0.005 <= printed_s <= slowest + 0.005:
        raise ParseError(
            f"hdparm's rate {timing['rate']} {timing['unit']}/sec contradicts {mib} MB in {printed_s} s", output
        )
    return HdparmRead(mib * MIB, mib * MIB / (rate * per_unit))


def read_command(node: str) -> str:
    return C_LOCALE + shell.cmd("hdparm", "-t", node)


def read(role: Role, node: str, *, timeout: float = 120) -> Sample:
    """Drop the page cache, time one `hdparm -t` of `node`; its rate in MB/s with the raw output kept."""
    role.run(DROP_CACHES, timeout=60)
    output, started, duration = run_timed(role, read_command(node), "hdparm", timeout=timeout)
    return Sample(value=parse(output, device=node).mb_per_s, started=started, duration_s=duration, raw=output)


def version(role: Role) -> str:
    """`hdparm -V`: which hdparm measured."""
    return role.run("hdparm -V 2>&1 | head -n 1", check=False).strip() or "hdparm (version unknown)"
