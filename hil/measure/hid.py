"""HID gadget throughput (seed 000 "USB Gadget HID 传输速率分析") with hil's hid_throughput
(hil/tools/hid_throughput.c): one side writes numbered reports and times them, the other reads and checks
them. The writer's figure is the sample: hidg and hidraw writes wait for the transfer, so its clock is the
link's. The reader's is not once the host's hidraw queue (64 reports) fills and drops new reports; the reader
proves what arrived: in order, intact, and how many the host's queue dropped (stored).

Directions are the seed's, seen from the host: `in` is gadget to host (/dev/hidgN -> /dev/hidrawN), `out`
host to gadget. The reader starts first, so no report is sent before anybody listens.
"""

from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass

from hil.lab.board import shell
from hil.lab.usb_gadget.hid import HidEnds
from hil.measure.parsing import ascii_float, ascii_int, one_of, output_lines, parser
from hil.verdict.errors import MeasurementError, ParseError
from hil.verdict.measurement import Measurement, Quantity

PROGRAM = "hid_throughput"
MODES = ("read", "write")
DIRECTIONS = ("in", "out")
LAST_REPORTS_S = 5.0  # after the writer is done, how long the reader may take for the last reports
_LINE = re.compile(
    r"hid_throughput mode=(?P<mode>\S+) report_bytes=(?P<report_bytes>\S+) reports=(?P<reports>\S+) "
    r"first=(?P<first>\S+) timed_reports=(?P<timed_reports>\S+) timed_ns=(?P<timed_ns>\S+) lost=(?P<lost>\S+) "
    r"corrupt=(?P<corrupt>\S+) kB_s=(?P<rate>\S+)"
)


@dataclass(frozen=True)
class HidRun:
    mode: str
    report_bytes: int
    reports: int  # reports moved (read: received, including the first, untimed one)
    first: int  # number of the first report the reader saw (the clock starts at its arrival)
    timed_reports: int  # reports numbered after it, up to the last it saw: they crossed the link in timed_ns
    timed_ns: int
    lost: int  # numbers the reader never saw: the host's hidraw queue was full (they crossed the link)

    @property
    def kb_per_s(self) -> float:
        return self.timed_reports * self.report_bytes / (self.timed_ns / 1e9) / 1e3

    @property
    def reports_per_s(self) -> float:
        return self.timed_reports / (self.timed_ns / 1e9)


def asked(command: str) -> dict[str, object]:
    """What a hid_throughput command line asks for, as `parse`'s keywords."""
    args = shlex.split(command)
    at = next(i for i, arg in enumerate(args) if arg.rsplit("/", 1)[-1] == PROGRAM)
    return {"mode": args[at + 1], "report_bytes": int(args[at + 3]), "count": int(args[at + 4])}


@parser("hid", asked=asked)
def parse(text: str, *, mode: str, report_bytes: int, count: int) -> HidRun:
    """The last result line, checked against the run asked for and against itself (a run cut short, a mangled
    report: ParseError). Reports the host's hidraw queue dropped (`lost`) did cross the link: the rate counts them."""
    lines = [line.rstrip() for line in output_lines(text, PROGRAM) if line.startswith(f"{PROGRAM} mode=")]
    if not lines:
        raise ParseError(f"{PROGRAM} printed no result line", raw_output=text)
    m = _LINE.fullmatch(lines[-1])  # a damaged last line never falls back to an earlier one
    if m is None:
        raise ParseError(f"{PROGRAM}'s last result line is incomplete: {lines[-1][:300]!r}", raw_output=text)
    fields = ("report_bytes", "reports", "first", "timed_reports", "timed_ns", "lost", "corrupt")
    n = {key: ascii_int(m[key], key, text) for key in fields}
    if (m["mode"], n["report_bytes"]) != (mode, report_bytes):
        raise ParseError(
            f"{PROGRAM} reports another run ({m['mode']}, {m['report_bytes']} B) than asked ({mode}, {report_bytes} B)",
            raw_output=text,
        )
    if n["corrupt"]:
        raise ParseError(f"{PROGRAM}: {n['corrupt']} reports arrived out of order or mangled", raw_output=text)
    if n["reports"] < 2 or n["reports"] + n["lost"] != count or (mode == "write" and n["lost"]):
        raise ParseError(
            f"{PROGRAM} moved {n['reports']} of the {count} reports asked for ({n['lost']} lost)", raw_output=text
        )
    if n["first"] + n["timed_reports"] > count - 1 or n["timed_reports"] == 0 or n["timed_ns"] == 0:
        raise ParseError(f"{PROGRAM} result line timed nothing usable: {m.group(0)!r}", raw_output=text)
    run = HidRun(mode, report_bytes, n["reports"], n["first"], n["timed_reports"], n["timed_ns"], n["lost"])
    printed = ascii_float(m["rate"], "kB_s", text)
    if abs(printed - run.kb_per_s) > 0.0005 + run.kb_per_s * 1e-9:  # the program prints 3 decimals
        raise ParseError(f"{PROGRAM}: kB_s={m['rate']} contradicts its bytes and time", raw_output=text)
    return run


def command(mode: str, node: str, *, report_bytes: int, count: int, timeout_s: int, hidraw: bool) -> str:
    one_of(mode, MODES, "mode")
    return shell.cmd(PROGRAM, mode, node, report_bytes, count, timeout_s, *(["hidraw"] if hidraw else []))


def transfer(ends: HidEnds, direction: str, *, report_bytes: int, count: int, timeout_s: int = 120) -> Measurement:
    """One run of `count` reports in `direction`: the writer's rate in kB/s; what the reader saw in details."""
    one_of(direction, DIRECTIONS, "direction")
    host, device = (ends.host, ends.hidraw), (ends.device, ends.hidg)
    (reader, rnode), (writer, wnode) = (host, device) if direction == "in" else (device, host)
    # hidraw wants a report number before each output report; the hidg side never does.
    read_cmd = command("read", rnode, report_bytes=report_bytes, count=count, timeout_s=timeout_s, hidraw=False)
    write_cmd = command(
        "write", wnode, report_bytes=report_bytes, count=count, timeout_s=timeout_s, hidraw=wnode == ends.hidraw
    )
    started = time.time()
    with reader.background(read_cmd, ready=f"^{PROGRAM} ready", name=f"{PROGRAM} read") as read_side:
        code, written = writer.run_status(write_cmd, timeout=timeout_s + 30)
        # Every report is written: the last ones reach the reader within moments, unless the host's hidraw
        # queue dropped them; then TERM ends the reader (exit 4) and its line covers what it saw.
        read_side.wait(timeout_s=LAST_REPORTS_S if code == 0 else 0)
    duration = time.time() - started
    if code != 0:
        raise MeasurementError(f"{PROGRAM} write on {writer.label} exited {code}", raw_output=written)
    if read_side.exit_status not in (0, 4):
        raise MeasurementError(
            f"{PROGRAM} read on {reader.label} exited {read_side.exit_status} ({read_side.lost or 'see its output'})",
            raw_output=read_side.output,
        )
    received = parse(read_side.output, mode="read", report_bytes=report_bytes, count=count)
    run = parse(written, mode="write", report_bytes=report_bytes, count=count)
    return Measurement(
        {"throughput": Quantity(run.kb_per_s, "kB/s")},
        raw=f"--- writer ({writer.label}) ---\n{written}\n--- reader ({reader.label}) ---\n{read_side.output}",
        started=started,
        duration_s=duration,
        details={
            "report_bytes": report_bytes,
            "reports": count,
            "reports_per_s": round(run.reports_per_s, 1),
            "reports_dropped_before_the_reader": received.lost,
            "reader_kb_s": round(received.kb_per_s, 3),
            "reader": f"{reader.label} {rnode}",
        },
    )
