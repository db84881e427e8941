"""Per-CPU load on a role while a sample runs, from two /proc/stat snapshots (seed 004's method).

Throughput on an embedded board is often bounded by one core drowning in interrupts, not by the bus: seed 004
reads per-CPU usr/sys/irq/softirq/iowait during the transfer and looks for a core at 100%. /proc/stat is read
before and after every sample (hil.measure.board_state) and the per-CPU shares stored with the sample.
"""

from __future__ import annotations

import logging
import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from hil.measure.parsing import ascii_int, output_lines, parser
from hil.verdict.errors import ParseError
from hil.verdict.measurement import CpuLoad, CpuShare, Measurement, Quantity
from hil.verdict.result import Sample

if TYPE_CHECKING:
    from hil.lab.board.role import Role

log = logging.getLogger("hil")
BUSIEST = "cpu_busiest"  # the quantity a catalogue metric reads to gate the load (seed 004: the core that stops)
# /proc/stat "cpuN" fields, in order (proc(5)); older kernels stop after softirq or steal.
FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
CPU_LINE = re.compile(r"^(cpu[0-9]*)((?: +[0-9]+){4,10}) *$")  # [0-9]: \d takes any Unicode digit
FIELDS_OF_SHARE = tuple(f.name for f in fields(CpuShare))
# The /proc/stat counters each share of CpuShare adds up (steal counts in the total only).
COUNTERS_OF_SHARE = {share: (share,) for share in FIELDS_OF_SHARE} | {"user": ("user", "nice")}
# The other lines of /proc/stat (fs/proc/stat.c), skipped; any line else is damaged output.
OTHER_LINES = frozenset({"intr", "ctxt", "btime", "processes", "procs_running", "procs_blocked", "softirq"})
# The kernel sums the `cpu` line over the cores, then reads each core again for its own line: a core may
# tick once per field in between (pc-after.txt: user 230014 against 99245 + 130768).
TICKS_BETWEEN_READS = 2
SATURATED_PERCENT = 90.0  # seed 004: one core at ~100% irq+softirq is where the throughput stops


@parser("procstat")
def parse_stat(text: str) -> dict[str, tuple[int, ...]]:
    """The cpu lines of /proc/stat: name -> the counters of FIELDS (missing trailing ones as 0). Every core's
    line has as many counters as the total's, and the cores' counters add up to no more than the total's (a
    line cut short, a digit changed); a core's line missing is found by `cpu_load`."""
    cpus: dict[str, tuple[int, ...]] = {}
    widths: set[int] = set()
    for line in output_lines(text, "/proc/stat"):
        match = CPU_LINE.match(line.strip())
        if not match:
            if line.startswith("cpu"):  # a cpu line that is not all counters: corrupt, never skipped
                raise ParseError(f"/proc/stat line is not a cpu line of counters: {line[:80]!r}", text)
            if line.strip() and line.split(maxsplit=1)[0] not in OTHER_LINES:  # a damaged line may hide a cpu's
                raise ParseError(f"/proc/stat printed a line it has none of: {line[:80]!r}", text)
            continue
        name = match.group(1)
        if name in cpus:
            raise ParseError(f"/proc/stat lists {name} twice", text)
        values = [ascii_int(v, f"{name} counter", text) for v in match.group(2).split()]
        widths.add(len(values))
        cpus[name] = tuple((values + [0] * len(FIELDS))[: len(FIELDS)])
    if "cpu" not in cpus or len(cpus) < 2:
        raise ParseError("no cpu lines in /proc/stat output (need the total and at least one cpuN)", text)
    cores = [counters for name, counters in cpus.items() if name != "cpu"]
    slack = TICKS_BETWEEN_READS * len(cores)
    over = [f for i, f in enumerate(FIELDS) if sum(c[i] for c in cores) > cpus["cpu"][i] + slack]
    if len(widths) > 1 or over:
        raise ParseError(f"/proc/stat: the cores' lines contradict the cpu total ({', '.join(over) or 'widths'})", text)
    return cpus


def cpu_load(before: Mapping[str, Sequence[int]], after: Mapping[str, Sequence[int]]) -> dict[str, CpuShare]:
    """Per-CPU shares between two snapshots. The cores' time must add up to the total's: a core missing from
    one snapshot is a ParseError, not a core left out of the busiest."""
    _cores_add_up(before, after)
    shares = {}
    for name, end in after.items():
        start = before.get(name)
        if start is None:
            continue
        delta = dict(zip(FIELDS, (b - a for a, b in zip(start, end, strict=True)), strict=True))
        if any(value < 0 for value in delta.values()):
            raise ParseError(f"{name}: /proc/stat counters went backwards (a reboot between snapshots?)", "")
        total = sum(delta.values())
        if total:
            parts = {share: sum(delta[f] for f in counters) for share, counters in COUNTERS_OF_SHARE.items()}
            shares[name] = CpuShare(**{share: round(100.0 * ticks / total, 1) for share, ticks in parts.items()})
    return shares


class CoreSetChanged(ParseError):
    """A core is in one snapshot only: its line was lost, or it went on- or offline during the sample."""


def _cores_add_up(before: Mapping[str, Sequence[int]], after: Mapping[str, Sequence[int]]) -> None:
    if "cpu" not in before or "cpu" not in after:
        return
    cores = [name for name in after if name != "cpu" and name in before]
    total = sum(after["cpu"]) - sum(before["cpu"])
    of_cores = sum(sum(after[name]) - sum(before[name]) for name in cores)
    if abs(total - of_cores) > 2 * TICKS_BETWEEN_READS * max(len(cores), 1):  # a tick a core, per snapshot
        gone = sorted(set(before) ^ set(after))
        raise (CoreSetChanged if gone else ParseError)(
            f"/proc/stat: the cores' time ({of_cores} ticks) is not the cpu total's ({total}): "
            + (f"{', '.join(gone)} in one snapshot only (went on- or offline?)" if gone else "a core's line is lost"),
            "",
        )


def saturated(shares: Mapping[str, CpuShare]) -> list[str]:
    """Cores (not the total) whose interrupt handling or whole time is at the limit, worst first."""
    found = []
    for name, share in sorted(shares.items(), key=lambda item: -item[1].irq_softirq):
        if name == "cpu":
            continue
        if share.irq_softirq >= SATURATED_PERCENT:
            found.append(f"{name}: irq+softirq {share.irq_softirq:.0f}%")
        elif share.busy >= SATURATED_PERCENT:
            found.append(f"{name}: busy {share.busy:.0f}% (usr {share.user:.0f}%, sys {share.system:.0f}%)")
    return found


def load(role: Role, before: Mapping[str, Sequence[int]], after: Mapping[str, Sequence[int]]) -> CpuLoad | None:
    """The role's per-CPU load between two snapshots; None when its set of cores changed."""
    try:
        return CpuLoad(role.label, cpu_load(before, after))
    except CoreSetChanged as exc:
        # No per-CPU figure from it, but the tool's figure stands: a core that went offline is named by
        # the operating point around the sample (hil.measure.operating_point), which makes it UNSTABLE.
        log.warning("%s: no per-CPU load for this sample: %s", role.label, exc)
        return None


def with_busiest(watched: Callable[[], Any]) -> Callable[[], Any]:
    """`watched` (a sample with its `observed.cpu_load`), the busiest core's share added to its Measurement
    as the `cpu_busiest` quantity, for a metric to gate."""

    def busiest() -> Any:
        got = watched()
        load = got.observed.cpu_load if isinstance(got, Measurement) else None
        share = load.busiest if load is not None else None
        if share is not None:  # else a metric reading it says the tool gave none: an ERROR, not a 0 %
            got.values.setdefault(BUSIEST, Quantity(share, "%"))
        return got

    return busiest


def summary(samples: Sequence[Sample]) -> tuple[str, list[str]] | None:
    """Median per-CPU shares over samples, as one line, and the saturated cores; None without load data."""
    loads = [s.observed.cpu_load.cpus for s in samples if s.observed.cpu_load is not None]
    if not loads:
        return None
    names = sorted(set.intersection(*(set(load) for load in loads)), key=lambda n: (n != "cpu", len(n), n))
    median = {
        name: CpuShare(**{f: statistics.median(getattr(load[name], f) for load in loads) for f in FIELDS_OF_SHARE})
        for name in names
    }
    line = "; ".join(
        f"{'all' if name == 'cpu' else name} usr {s.user:.0f}% sys {s.system:.0f}% irq {s.irq:.0f}% "
        f"softirq {s.softirq:.0f}% iowait {s.iowait:.0f}% idle {s.idle:.0f}%"
        for name, s in median.items()
    )
    return line, saturated(median)
