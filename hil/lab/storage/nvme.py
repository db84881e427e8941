"""An NVMe namespace on a role: wait for it, find its controller and PCI device, name the drive; and what fio
runs on, the raw namespace or a file on a file system made on it (seed 002: ext4, f2fs with nobarrier).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.storage import filesystem

# The file systems fio also runs on, each with its mount options (seed 002: "f2fs, nobarrier").
FILESYSTEMS: dict[str, tuple[str, ...]] = {"ext4": (), "f2fs": ("nobarrier",)}
TARGETS = ("raw", *FILESYSTEMS)
MOUNTPOINT = "/mnt/hil-nvme"
FIO_FILE = "hil-fio.bin"
_NAMESPACE = re.compile(r"^/dev/(?P<controller>nvme[0-9]+)n[0-9]+$", re.ASCII)


@dataclass(frozen=True)
class NvmeNamespace:
    node: str  # /dev/nvme0n1
    controller: str  # nvme0
    pci_device: str  # sysfs path of the controller's PCI function
    size_bytes: int
    model: str
    serial: str
    firmware: str

    def describe(self) -> str:
        return f"{self.model} (serial {self.serial}, firmware {self.firmware}), {self.size_bytes / 2**30:.1f} GiB"


def controller_of(node: str) -> str:
    match = _NAMESPACE.match(node)
    if match is None:
        raise LabError(f"{node!r} is not an NVMe namespace node like /dev/nvme0n1 (setting nvme.device)")
    return match["controller"]


def wait_for_namespace(role: Role, node: str, *, timeout_s: float = 30.0) -> NvmeNamespace:
    """The namespace once its block device exists (loading the nvme driver if it is a module)."""
    controller = controller_of(node)
    name = node.removeprefix("/dev/")
    role.run(shell.quiet(shell.cmd("modprobe", "nvme")), timeout=60)
    polls = max(1, int(timeout_s * 2))
    script = (
        f"i=0; while [ ! -b {shell.cmd(node)} ] && [ $i -lt {polls} ]; do sleep 0.5; i=$((i+1)); done; "
        f"[ -b {shell.cmd(node)} ] || exit 3; "
        f"c={shell.cmd(f'/sys/class/nvme/{controller}')}; "
        'readlink -f "$c/device"; '
        f"cat {shell.cmd(f'/sys/class/block/{name}/size')}; "
        'cat "$c/model"; cat "$c/serial"; cat "$c/firmware_rev"'
    )
    exitcode, output = role.run_status(script, timeout=timeout_s + 30)
    lines = [line.strip() for line in output.splitlines()]
    if exitcode != 0 or len(lines) < 5 or not lines[1].isdigit():
        present = role.run("ls /dev/nvme* /sys/class/nvme 2>&1; true", timeout=30).strip()
        raise LabError(
            f"{role.label}: NVMe namespace {node} did not appear within {timeout_s:.0f} s "
            f"(present: {present or 'no NVMe device'})"
        )
    # The script's lines: PCI device, size (sysfs block sizes count 512-byte sectors), model, serial, firmware.
    return NvmeNamespace(node, controller, lines[0], int(lines[1]) * 512, *lines[2:5])


def require_span(namespace: NvmeNamespace, size_mb: int) -> None:
    """fio must not run off the end of the namespace (setting nvme.size_mb)."""
    if size_mb * 2**20 > namespace.size_bytes:
        raise LabError(
            f"nvme.size_mb {size_mb} is larger than {namespace.node} ({namespace.size_bytes / 2**20:.0f} MiB)"
        )


@dataclass(frozen=True)
class FioTarget:
    filename: str  # fio's --filename: the namespace's node, or a file in its mounted file system
    directory: str | None = None  # the mount point; None on the raw namespace
    facts: dict[str, str] = field(default_factory=dict)


@contextmanager
def fio_target(role: Role, node: str, target: str) -> Iterator[FioTarget]:
    """`target` ("raw" or a FILESYSTEMS key) on the namespace: a file system is made (its data is lost) and
    mounted for the block; the facts name it and the mount options the kernel applied. Unavailable where the
    role cannot make or mount it."""
    if target == "raw":
        yield FioTarget(node, facts={"fio_target": f"raw namespace {node}"})
        return
    if target not in FILESYSTEMS:
        raise ValueError(f"unknown NVMe fio target {target!r} (known: {', '.join(TARGETS)})")
    with filesystem.mounted(
        role, node, target, mountpoint=MOUNTPOINT, options=FILESYSTEMS[target], mkfs=filesystem.supported(role, target)
    ) as directory:
        applied = filesystem.mount_options(role.run(shell.cmd("cat", "/proc/mounts"), timeout=30), directory)
        yield FioTarget(
            f"{directory}/{FIO_FILE}",
            directory,
            {"fio_target": f"file {FIO_FILE} on {target} on {node}", "mount_options": applied},
        )
