"""The lab PC's CPU use outside hil, around every sample: is this figure the board's, or the PC's neighbours'?

The PC side of a USB test, and the whole virtual board, share the lab PC's CPUs with whatever else runs
there: a CPU-bound job beside a virtual-lab run took MSC 1M read from 39 to 11 MB/s and UVC from 52 to
21 fps (2026-11-24), and the band said FAIL with a low CV. Around each sample this reads the PC's busy time
(/proc/stat) and the CPU time of hil's own process tree (this process and its descendants: QEMU, local
commands; time of reaped children is in their parent's cutime/cstime), and stores the rest, as a share of
all the PC's CPUs, with the sample. Another pytest-xdist worker's board counts as foreign: it competes too.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hil.measure.around import around
from hil.verdict.result import Sample

BUSY_FIELDS = (0, 1, 2, 5, 6, 7)  # user nice system irq softirq steal of /proc/stat's cpu line
IDLE_FIELDS = (3, 4)  # idle iowait
BUSY_SHARE = 25.0  # % of all CPUs outside hil: above it, a figure is the PC's as much as the board's


def _cpu_jiffies() -> tuple[int, int]:
    """(busy, total) clock ticks of all CPUs since boot."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    busy = sum(fields[i] for i in BUSY_FIELDS if i < len(fields))
    return busy, busy + sum(fields[i] for i in IDLE_FIELDS)


def _own_jiffies(root: int) -> int:
    """CPU ticks of `root` and its live descendants, their reaped children's included."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        ticks[pid] = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    own, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in own]
        own.update(children)
        frontier.extend(children)
    return sum(ticks.get(pid, 0) for pid in own)


def snapshot() -> tuple[int, int, int]:
    busy, total = _cpu_jiffies()
    return busy, total, _own_jiffies(os.getpid())


def foreign_percent(before: tuple[int, int, int], after: tuple[int, int, int]) -> float | None:
    """The share of all CPUs (0..100) busy outside hil's tree between two snapshots; None for no time."""
    busy, total, own = (b - a for a, b in zip(before, after, strict=True))
    if total <= 0:
        return None
    return min(100.0, max(0.0, 100 * (busy - own) / total))


def with_pc_load(sample: Callable[[], Any]) -> Callable[[], Any]:
    """`sample`, with the lab PC's CPU use outside hil during it as its `observed.pc_load` (%)."""

    def share(before: tuple[int, int, int]) -> float | None:
        percent = foreign_percent(before, snapshot())
        return None if percent is None else round(percent, 1)

    return around(sample, "pc_load", snapshot, share)


def summary(samples: Sequence[Sample], bound: float | None = None) -> tuple[str, bool] | None:
    """The median and highest foreign load over the samples, and whether the PC was busy (median above
    `bound`, a fraction, else BUSY_SHARE); None without the data."""
    shares = [s.observed.pc_load for s in samples if s.observed.pc_load is not None]
    if not shares:
        return None
    median = statistics.median(shares)
    line = f"median {median:.0f}%, max {max(shares):.0f}% of the lab PC's {os.cpu_count()} CPUs busy outside hil"
    return line, median > (BUSY_SHARE if bound is None else bound * 100)
