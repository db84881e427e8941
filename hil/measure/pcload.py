"""The lab PC's CPU use outside hil, around every sample: is this figure the board's, or the PC's neighbours'?

The PC side of a USB test, and the whole virtual board, share the lab PC's CPUs with whatever else runs
there: a CPU-bound job beside a virtual-lab run took MSC 1M read from 39 to 11 MB/s (2026-11-24), and the band
said FAIL with a low CV. Around each sample this reads the PC's busy time (/proc/stat) less that of hil's own
process tree (QEMU, local commands), as a share of all the PC's CPUs; another xdist worker's board competes
too, so it counts as foreign. The lab's own board emulators outside hil's tree (named EMULATOR_PREFIX by the
lab's services) are the boards' work, not foreign: stored apart, as `observed.pc_emulators`.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hil.measure.around import around
from hil.services import EMULATOR_PREFIX
from hil.verdict.result import Sample

BUSY_FIELDS = (0, 1, 2, 5, 6, 7)  # user nice system irq softirq steal of /proc/stat's cpu line
IDLE_FIELDS = (3, 4)  # idle iowait
BUSY_SHARE = 25.0  # % of all CPUs outside hil: above it, a figure is the PC's as much as the board's


def _cpu_jiffies() -> tuple[int, int]:
    """(busy, total) clock ticks of all CPUs since boot."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    busy = sum(fields[i] for i in BUSY_FIELDS if i < len(fields))
    return busy, busy + sum(fields[i] for i in IDLE_FIELDS)


def _own_jiffies(root: int) -> tuple[int, int]:
    """CPU ticks of `root` and its live descendants (their reaped children's included), and of the lab's
    board emulators outside that tree."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    emulators: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name, fields = (entry / "stat").read_text().rsplit(")", 1)
        except (OSError, ValueError):
            continue  # gone meanwhile
        pid, fields = int(entry.name), fields.split()
        parents[pid] = int(fields[1])
        ticks[pid] = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
        if name.partition("(")[2].startswith(EMULATOR_PREFIX):
            emulators.add(pid)
    own, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in own]
        own.update(children)
        frontier.extend(children)
    return sum(ticks.get(pid, 0) for pid in own), sum(ticks[pid] for pid in emulators - own)


def snapshot() -> tuple[int, int, int, int]:
    return *_cpu_jiffies(), *_own_jiffies(os.getpid())


def shares(before: tuple[int, ...], after: tuple[int, ...]) -> tuple[float, float] | None:
    """The shares of all CPUs (0..100) busy outside hil's tree and the lab's emulators, and busy in those
    emulators, between two snapshots; None for no time."""
    busy, total, own, emulators = (b - a for a, b in zip(before, after, strict=True))
    if total <= 0:
        return None
    clip = lambda ticks: round(min(100.0, max(0.0, 100 * ticks / total)), 1)  # noqa: E731
    return clip(busy - own - emulators), clip(emulators)


def foreign_percent(before: tuple[int, ...], after: tuple[int, ...]) -> float | None:
    """The share of all CPUs (0..100) busy outside hil's tree and the lab's emulators; None for no time."""
    both = shares(before, after)
    return None if both is None else both[0]


def with_pc_load(sample: Callable[[], Any]) -> Callable[[], Any]:
    """`sample`, with the lab PC's CPU use outside hil during it as its `observed.pc_load` (%), and the lab's
    own emulators' as `observed.pc_emulators` when they used any."""

    def foreign(before: tuple[int, ...]) -> dict[str, float | None]:
        both = shares(before, snapshot())
        if both is None:
            return {}
        return {"pc_load": both[0], "pc_emulators": both[1] or None}

    return around(sample, snapshot, foreign)


def summary(samples: Sequence[Sample], bound: float | None = None) -> tuple[str, bool] | None:
    """The median and highest foreign load over the samples, and whether the PC was busy (median above
    `bound`, a fraction, else BUSY_SHARE); None without the data."""
    loads = [s.observed.pc_load for s in samples if s.observed.pc_load is not None]
    if not loads:
        return None
    median = statistics.median(loads)
    line = f"median {median:.0f}%, max {max(loads):.0f}% of the lab PC's {os.cpu_count()} CPUs busy outside hil"
    emulators = [s.observed.pc_emulators for s in samples if s.observed.pc_emulators]
    if emulators:
        line += f" (and the lab's own board emulators a median {statistics.median(emulators):.0f}%, not counted)"
    return line, median > (BUSY_SHARE if bound is None else bound * 100)
