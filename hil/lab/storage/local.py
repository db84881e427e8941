"""The board's own storage (eMMC, SD card) made ready for a measurement, and the facts that explain its figure.

Measured through a filesystem: hil formats and mounts `local.device`, or uses `local.dir` the board has
mounted. Recorded: the filesystem type, its device and block queue, and `hdparm -T -t` where there is hdparm.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from hil.catalogue.storage import LocalSettings
from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.storage import filesystem, queue

MOUNTPOINT = "/mnt/hil-local"
NODE_WAIT_S = 20
FILE = "hil-local.bin"


@dataclass
class LocalStorage:
    directory: str  # where the measured file lives
    device: str  # the block device its file system is on (df's first column)
    facts: dict[str, str] = field(default_factory=dict)

    @property
    def file(self) -> str:
        """The file the measurement writes and reads (removed when the storage is left)."""
        return f"{self.directory}/{FILE}"


def wait_for_node(role: Role, node: str, *, timeout_s: float = NODE_WAIT_S) -> None:
    """The block device appears once its driver probed the card: poll for it, then an error naming it."""
    deadline = time.monotonic() + timeout_s
    while role.run_status(shell.cmd("test", "-b", node))[0] != 0:
        if time.monotonic() > deadline:
            listing = role.run("ls /sys/class/block 2>&1; true", timeout=30).split()
            raise LabError(f"{role.label}: no block device {node} after {timeout_s:.0f} s (there are: {listing})")
        time.sleep(0.5)


def _df(role: Role, directory: str) -> tuple[str, str]:
    """df's first column for the directory ('' when it gives none), and df's output for a message."""
    lines = role.run(shell.cmd("df", "-P", directory), timeout=30).strip().splitlines()
    source = lines[-1].split()[0] if len(lines) >= 2 and lines[-1].split() else ""
    return source, " | ".join(lines)


def backing_device(role: Role, directory: str) -> str:
    """The device a directory's filesystem lives on (df's first column), e.g. /dev/mmcblk0p8."""
    device, shown = _df(role, directory)
    if not device.startswith("/dev/"):
        raise LabError(f"{role.label}: {directory} is not on a block device (df: {shown[:200]})")
    return device


def where(role: Role, directory: str, source: str | None = None) -> str:
    """'/data on /dev/mmcblk0p8 (ext2/ext3)': what holds a directory (`source`: its device, if read already)."""
    if source is None:
        source = _df(role, directory)[0] or "?"
    fs_type = role.run(shell.cmd("stat", "-f", "-c", "%T", directory), timeout=30).strip()
    return f"{directory} on {source} ({fs_type})"


def hdparm(role: Role, device: str) -> str | None:
    """`hdparm -T -t` read timings of the device, or None where the board has no hdparm (seed 001)."""
    exitcode, output = role.run_status(shell.cmd("hdparm", "-T", "-t", device) + " 2>&1", timeout=120)
    if exitcode == 127 or "not found" in output:
        return None
    timings = re.findall(r"Timing (cached|buffered disk) reads:\s*(.+)", output)
    if exitcode != 0 or not timings:
        return f"hdparm failed (exit {exitcode}): {output.strip()[:200]}"
    return "; ".join(f"{kind}: {text.strip()}" for kind, text in timings)


def _storage(role: Role, directory: str) -> LocalStorage:
    device = backing_device(role, directory)
    facts = {"local_storage": where(role, directory, device), "block_queue": queue.read(role, device).describe()}
    timings = hdparm(role, device)
    if timings is not None:
        facts["hdparm"] = timings
    return LocalStorage(directory, device, facts)


@contextmanager
def prepared(role: Role, settings: LocalSettings) -> Iterator[LocalStorage]:
    """The directory to measure in, with its facts; a device hil formatted is unmounted on the way out."""
    if not (settings.device or settings.dir):
        raise LabError(f"{role.label}: set local.device or local.dir: where the board's own storage is")
    if settings.module:
        role.run(shell.cmd("modprobe", "-a", *settings.module.split()), timeout=60)
    if settings.dir:
        writable = shell.cmd("test", "-d", settings.dir) + " && " + shell.cmd("test", "-w", settings.dir)
        if role.run_status(writable)[0] != 0:
            raise LabError(f"{role.label}: local.dir {settings.dir} is not a writable directory on the board")
        storage = _storage(role, settings.dir)
        try:
            yield storage
        finally:  # the board's own filesystem keeps nothing of hil's
            role.run_status(shell.cmd("rm", "-f", storage.file))
        return
    wait_for_node(role, settings.device)
    with filesystem.mounted(role, settings.device, settings.fs, mountpoint=MOUNTPOINT) as mountpoint:
        yield _storage(role, mountpoint)
