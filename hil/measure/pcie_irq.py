"""PCIe interrupt latency (seed 002 §6 ELBI, §7 MSI): one side raises interrupts back to back from a kernel
thread, the other counts them and logs once a second (the seed's test patches)

    pr_err("elbi count=%d %lluus\n", cur_count, us);   /* on the endpoint, for ELBI */
    pr_err("msi count=%d %lluus\n", cur_count, us);    /* on the root complex, for MSI */

where `us = 1000000 / (interrupts in the last second)`. That integer rounds the seed's 6 and 2 µs by up to 50%:
when two consecutive lines carry printk timestamps, the latency comes from the counts and the timestamps.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure.kernel_log import after_marker, mark
from hil.measure.parsing import ascii_float, ascii_int, lines_holding, one_of, parser
from hil.verdict.errors import ParseError
from hil.verdict.measurement import Measurement, Quantity

KINDS = ("elbi", "msi")
_LINE = re.compile(
    r"(?:<[0-9]>)?(?:\[ *(?P<ts>[0-9]+\.[0-9]+)\])?[^\n\r]*?"
    r"\b(?P<kind>elbi|msi) count=(?P<count>-?[0-9]+) (?P<us>[0-9]+)us",
    re.ASCII,
)


@dataclass(frozen=True)
class IrqLatency:
    kind: str
    us_per_interrupt: float
    interrupts: int  # counted in the interval the figure covers
    interval_s: float


def _line_values(m: re.Match[str], text: str) -> tuple[int, int, float | None]:
    if m["count"].startswith("-"):  # %d of an int counter: it wrapped, and so did every difference
        raise ParseError(f"{m['kind']} counter wrapped: {m.group(0)!r}", raw_output=text)
    count = ascii_int(m["count"], f"{m['kind']} count", text)
    us = ascii_int(m["us"], f"{m['kind']} time per interrupt", text)
    ts = ascii_float(m["ts"], "printk timestamp", text) if m["ts"] else None
    return count, us, ts


@parser("pcie_irq")
def parse(text: str, kind: str = "elbi") -> IrqLatency:
    """The latency the last `<kind> count=N Mus` line reports (refined by the line before it, if timed)."""
    one_of(kind, KINDS, "interrupt kind")
    lines = lines_holding(text, f"{kind} count=", _LINE, f"{kind} interrupt count")  # a damaged last line: none
    count, us, ts = _line_values(lines[-1], text)
    if count == 0 or us == 0:
        # The driver prints 0 us until the first interrupt arrives: nothing was measured.
        raise ParseError(f"no {kind} interrupt arrived: {lines[-1].group(0)!r}", raw_output=text)
    # us is 10^6 / (interrupts in the last second), truncated: at least 10^6 / (us + 1) of them arrived,
    # which the count of all interrupts since probe cannot be below.
    if count < 1_000_000 / (us + 1):
        raise ParseError(f"{kind}: {us} us per interrupt needs more interrupts than the {count} counted", text)
    if len(lines) < 2:
        return IrqLatency(kind, float(us), 1_000_000 // us, 1.0)
    previous, _, previous_ts = _line_values(lines[-2], text)
    delta = count - previous
    if delta <= 0:
        raise ParseError(f"{kind} count did not grow between the last two lines ({previous} -> {count})", text)
    # The driver divides by the interrupts since it last read the counter, a few fewer than the printed
    # difference (it re-reads the counter after printing): its figure is at or just above 10^6 / delta.
    if not 1_000_000 // delta <= us <= 1.25 * 1_000_000 / delta + 1:
        raise ParseError(f"{kind}: {us} us per interrupt contradicts {delta} interrupts in a second", text)
    if ts is None or previous_ts is None or ts <= previous_ts:
        return IrqLatency(kind, float(us), delta, 1.0)
    interval = ts - previous_ts
    return IrqLatency(kind, interval * 1e6 / delta, delta, interval)


def sample(role: Role, kind: str, *, seconds: float = 3.0) -> Measurement:
    """Read the latency the counting side logs over the next `seconds` (its test thread runs since probe)."""
    one_of(kind, KINDS, "interrupt kind")
    marker = mark(role, "hil-pcie-irq")
    started = time.time()
    role.run(shell.cmd("sleep", f"{seconds:g}"), timeout=seconds + 30)
    log = after_marker(role.run("dmesg", timeout=60), marker)
    latency = parse(log, kind)
    return Measurement(
        {"latency": Quantity(latency.us_per_interrupt, "us")},
        raw=marker + log,
        started=started,
        duration_s=time.time() - started,
        details={"interrupts": latency.interrupts, "interval_s": latency.interval_s},
    )
