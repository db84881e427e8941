"""Where a storage figure loses its rate: the same transfer through the layers beside it (seed 000's triage;
docs/failures.md shows the steps and a real diagnosis).

`StorageDiagnosis` runs dd on the raw device (with the block layer's, the interrupts' and the CPUs' counters around
it), dd and cp on its file system, the board's own storage behind the link, the same disk on the lab PC
(hil.lab.usb_host.pc_disk: a slow disk or a slow board) and each role's operating point, one line each; layers a
check does not have are left out. Nothing it does touches the data the check verified: file-system and board-side
transfers use a scratch file of their own, removed after, and the raw device is written only where the check
writes it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from hil.diagnose import probes, steps
from hil.errors import Unavailable
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.storage import queue
from hil.lab.usb_host.pc_disk import PcDisk
from hil.measure import board_state, dd

LOSS = 0.7  # a layer below 70% of the one beneath it is where the rate goes (the samples' spread is < 20%)
MAX_MB = 64  # each layer moves at most this much: long enough to time, short enough to bound the diagnosis
SCRATCH = ".hil-diagnose"  # the scratch file's name in a directory


@dataclass(frozen=True)
class FarEnd:
    """The storage behind the link: the board's disk, or the file behind a gadget's LUN."""

    role: Role
    directory: str  # the scratch file goes here, beside the backing file


@dataclass(frozen=True)
class StorageDiagnosis:
    """What the check moved: `direction` ("read"/"write") of `block_size` blocks of `disk` on `role`."""

    role: Role
    disk: str
    direction: str
    block_size: str
    total_mb: int
    mount: str | None = None  # a file system of the disk, mounted here: its layers are measured too
    far: FarEnd | None = None
    raw_writable: bool = False  # the check itself writes the raw disk: the diagnosis may too
    on_the_pc: Callable[[], PcDisk] | None = None  # the same disk on the lab PC (Unavailable where it has none)

    @property
    def mb(self) -> int:
        return max(1, min(self.total_mb, MAX_MB))

    def __call__(self, deadline: float, lines: list[str]) -> None:
        """The findings, one line each; steps past `deadline` (time.monotonic) are left out, saying so."""
        rates: dict[str, float] = {}
        for step in (self._raw, self._file_system, self._far_end, self._same_disk_on_the_pc, self._operating_point):
            if time.monotonic() > deadline:
                lines.append(f"stopped at its time bound before {step.__name__.strip('_').replace('_', ' ')}")
                break
            lines += step(rates)
        lines += where(rates, self.direction)

    def _raw(self, rates: dict[str, float]) -> list[str]:
        """dd on the raw device, with the block layer's, the interrupts' and the CPUs' counters around it."""
        direction = self.direction if self.raw_writable or self.direction == "read" else "read"
        queue_of = queue.read(self.role, self.disk)
        stat = f"/sys/block/{queue_of.disk}/stat"
        files = [stat, steps.PROC_STAT, steps.INTERRUPTS]
        command = dd.read_command if direction == "read" else dd.write_command
        self.role.run(dd.DROP_CACHES, timeout=60)
        moved = command(self.disk, self.block_size, self.mb)
        transfer = board_state.script("transfer", commands={"dd": f"{moved} 2>&1"})
        controller = {"controller": probes.controller_script(self.disk)}
        snapshots = [board_state.script("before", files, controller), transfer, board_state.script("after", files)]
        output = self.role.run("; ".join(snapshots), timeout=120)
        before, after = (board_state.parse(output, tag) for tag in ("before", "after"))
        rate = dd.parse(board_state.parse(output, "transfer")["dd"], expected_bytes=None).mb_per_s
        if direction == self.direction:  # a read where the check wrote is shown, never weighed against its layers
            rates["raw"] = rate
        lines = [
            f"the raw device {queue_of.disk} {_verb(direction)} {rate:.1f} MB/s ({self.block_size} blocks, dd direct)"
        ]
        stats = [probes.parse_block_stat(side[stat]) for side in (before, after)]
        lines += requests_line(queue_of, *stats, direction, self.block_size)
        lines.append(steps.cpu_line(steps.cpu_shares(before, after)))
        return lines + steps.interrupt_lines(probes.parse_controller(before["controller"]), before, after)

    def _file_system(self, rates: dict[str, float]) -> list[str]:
        if self.mount is None:
            return []
        scratch = f"{self.mount.rstrip('/')}/{SCRATCH}"
        rates["file system"] = _file_rate(self.role, scratch, self.direction, self.mb)
        copy = f"{scratch}.copy"
        started = time.monotonic()
        self.role.run(f"{dd.DROP_CACHES}; {shell.cmd('cp', scratch, copy)} && sync", timeout=120)
        rates["file copy"] = self.mb * 1024 * 1024 / (time.monotonic() - started) / 1e6  # one console round trip in it
        self.role.run(shell.cmd("rm", "-f", scratch, copy), timeout=30)
        return [
            f"dd on the file system ({self.mount}) {_verb(self.direction)} {rates['file system']:.1f} MB/s",
            f"cp of that file on it (read and write, timed with sync) {rates['file copy']:.1f} MB/s",
        ]

    def _far_end(self, rates: dict[str, float]) -> list[str]:
        if self.far is None:
            return []
        scratch = f"{self.far.directory.rstrip('/')}/{SCRATCH}"
        try:
            rates["far"] = _file_rate(self.far.role, scratch, self.direction, self.mb)
        finally:
            self.far.role.run(shell.cmd("rm", "-f", scratch), timeout=30)
        far = f"the board's storage ({self.far.directory} on {self.far.role.name})"
        return [f"{far} {_verb(self.direction)} {rates['far']:.1f} MB/s (a file there, dd)"]

    def _same_disk_on_the_pc(self, rates: dict[str, float]) -> list[str]:
        if self.on_the_pc is None:
            return []
        try:
            disk = self.on_the_pc()
        except Unavailable as absent:
            return [f"not compared with the same disk on the lab PC: {absent}"]
        transfer = dd.read if self.direction == "read" else dd.write
        rates["pc"] = transfer(disk.role, disk.node, block_size=self.block_size, total_mb=self.mb).value
        return [f"the same disk on the lab PC ({disk.node}) {_verb(self.direction)} {rates['pc']:.1f} MB/s (dd direct)"]

    def _operating_point(self, rates: dict[str, float]) -> list[str]:
        return steps.operating_points([self.role] + ([self.far.role] if self.far else []))


def _verb(direction: str) -> str:
    return "reads" if direction == "read" else "writes"


def _file_rate(role: Role, path: str, direction: str, mb: int) -> float:
    """dd of a file: written first (its read needs it), caches dropped, then the direction's rate."""
    write = dd.C_LOCALE + shell.cmd("dd", "if=/dev/zero", f"of={path}", "bs=1M", f"count={mb}", "conv=fsync")
    read = dd.C_LOCALE + shell.cmd("dd", f"if={path}", "of=/dev/null", "bs=1M", f"count={mb}")
    written = dd.parse(role.run(f"{write} 2>&1", timeout=120), expected_bytes=mb * 1024 * 1024)
    if direction == "write":
        return written.mb_per_s
    role.run(dd.DROP_CACHES, timeout=60)
    return dd.parse(role.run(f"{read} 2>&1", timeout=120), expected_bytes=mb * 1024 * 1024).mb_per_s


def requests_line(
    queue_of: queue.BlockQueue, before: probes.BlockStat, after: probes.BlockStat, direction: str, block_size: str
) -> list[str]:
    """The merged request size against dd's block and the queue's cap: small requests are the block layer's."""
    size = after.kib_per_request(before, direction)
    if size is None:
        return [f"the block layer counted no {direction} request on {queue_of.disk}: the transfer bypassed it"]
    block_kib = dd.block_bytes(block_size) / 1024
    cap, hw = (_int(queue_of.values.get(key)) for key in ("max_sectors_kb", "max_hw_sectors_kb"))
    line = f"requests averaged {size:.0f} KiB for {block_kib:.0f} KiB blocks (max_sectors_kb {cap}, controller {hw})"
    if cap is not None and cap < block_kib and size <= cap * 1.05 and hw is not None and cap < hw:
        return [
            f"{line}: max_sectors_kb caps the requests below what the controller takes; the loss is in the block layer"
        ]
    if size < 0.5 * min(block_kib, hw or block_kib):
        return [f"{line}: the requests are split smaller than the blocks"]
    return [f"{line}: the block layer passes the blocks whole"]


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() else None


def where(rates: dict[str, float], direction: str) -> list[str]:
    """The layer that loses the rate, from the figures measured side by side."""
    found = []
    verb = _verb(direction)
    if "raw" in rates and "file system" in rates and rates["file system"] < LOSS * rates["raw"]:
        found.append(
            f"the raw device {verb} {rates['raw']:.0f} MB/s, the file system {rates['file system']:.0f}: "
            "the loss is above the block layer"
        )
    if "raw" in rates and "far" in rates:
        if rates["raw"] < LOSS * rates["far"]:
            found.append(
                f"the board's storage {verb} {rates['far']:.0f} MB/s, the raw device over the link "
                f"{rates['raw']:.0f}: the loss is between them (the link, its controllers, their requests)"
            )
        elif rates["far"] < 1.2 * rates["raw"]:  # the far end no faster than the link: it is the limit
            found.append(
                f"the board's storage itself {verb} only {rates['far']:.0f} MB/s, the raw device over the link "
                f"{rates['raw']:.0f}: the board's storage bounds the rate"
            )
    if "raw" in rates and "pc" in rates:
        if rates["raw"] < LOSS * rates["pc"]:
            found.append(
                f"the same disk on the lab PC {verb} {rates['pc']:.0f} MB/s, on the board {rates['raw']:.0f}: "
                "the board's path loses the rate (its controller, driver, PHY)"
            )
        elif rates["pc"] < 1.2 * rates["raw"]:
            found.append(
                f"the same disk on the lab PC {verb} only {rates['pc']:.0f} MB/s, on the board {rates['raw']:.0f}: "
                "the disk bounds the rate"
            )
    return found
