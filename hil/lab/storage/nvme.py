"""An NVMe namespace on a role: wait for it, find its controller and PCI device, name the drive.

The namespace's PCI device is where the link's trained speed and width are read (hil.lab.pcie.link).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.role import Role

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
    return NvmeNamespace(
        node=node,
        controller=controller,
        pci_device=lines[0],
        size_bytes=int(lines[1]) * 512,  # sysfs block sizes count 512-byte sectors
        model=lines[2],
        serial=lines[3],
        firmware=lines[4],
    )


def require_span(namespace: NvmeNamespace, size_mb: int) -> None:
    """fio must not run off the end of the namespace (setting nvme.size_mb)."""
    if size_mb * 2**20 > namespace.size_bytes:
        raise LabError(
            f"nvme.size_mb {size_mb} is larger than {namespace.node} ({namespace.size_bytes / 2**20:.0f} MiB)"
        )
