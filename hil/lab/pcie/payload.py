"""The Max Payload Size a PCIe function really uses, read back from its config space (seed 002 §3.2).

Every PCIe ceiling is net of TLP overhead at the link's `max_payload` (boards.yaml), so the Device Control
register's MPS must equal the declaration on a real link (and with `mps_policy: pcie_bus_perf`, the kernel
must run with it). Config space is read with `od` and walked here: no pciutils needed on the board.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.role import Role

PCI_EXPRESS_CAPABILITY = 0x10
STATUS_CAPABILITIES = 0x10  # Status register bit 4: the function has a capability list
_SIZES = (128, 256, 512, 1024, 2048, 4096)


@dataclass(frozen=True)
class Payload:
    device: str  # the function's sysfs path
    mps: int  # Device Control: the Max Payload Size in use, bytes
    mps_supported: int  # Device Capabilities: the largest the function supports
    mrrs: int  # Device Control: Max Read Request Size

    def describe(self) -> str:
        return (
            f"MPS {self.mps} B (supports up to {self.mps_supported} B), MRRS {self.mrrs} B "
            f"at {self.device.rsplit('/', 1)[-1]}"
        )


def parse_config(device: str, config: bytes) -> Payload | None:
    """The payload settings from a function's config space; None for a function without a PCIe capability
    (a conventional PCI device, such as QEMU's ivshmem on the virtual board)."""
    if len(config) < 64:
        raise LabError(f"{device}: only {len(config)} bytes of config space readable (not root?)")
    if not config[0x06] & STATUS_CAPABILITIES:
        return None
    at, seen = config[0x34] & 0xFC, set()
    while at and at not in seen and at + 12 <= len(config):
        seen.add(at)
        if config[at] == PCI_EXPRESS_CAPABILITY:
            capabilities = int.from_bytes(config[at + 4 : at + 8], "little")
            control = int.from_bytes(config[at + 8 : at + 10], "little")
            supported, mps, mrrs = capabilities & 0x7, (control >> 5) & 0x7, (control >> 12) & 0x7
            if max(supported, mps, mrrs) >= len(_SIZES):
                raise LabError(f"{device}: reserved payload encoding in its PCIe capability ({config.hex()[:128]})")
            return Payload(device, _SIZES[mps], _SIZES[supported], _SIZES[mrrs])
        at = config[at + 1] & 0xFC
    return None


def read_payload(role: Role, device: str) -> Payload | None:
    """Read the function's config space on `role` (its sysfs path) and parse it; None: no PCIe capability."""
    output = role.run(shell.cmd("od", "-An", "-v", "-tx1", f"{device}/config"), timeout=30)
    words = output.split()
    try:
        config = bytes(int(word, 16) for word in words)
    except ValueError:
        raise LabError(f"{role.label}: {device}/config did not read as bytes: {output[:300]!r}") from None
    return parse_config(device, config)


def bus_perf_policy(role: Role) -> bool:
    """Whether the kernel runs with pci=pcie_bus_perf (one of the comma-separated pci= options)."""
    words = role.run("cat /proc/cmdline", timeout=30).split()
    return any("pcie_bus_perf" in word.removeprefix("pci=").split(",") for word in words if word.startswith("pci="))


def require_payload(payload: Payload | None, declared: int, where: str, *, bus_perf: bool | None = None) -> None:
    """A function whose MPS is not the pair's `max_payload`, or not one it supports, is an error; `bus_perf`:
    whether the kernel runs with pci=pcie_bus_perf (None: not asked for)."""
    if payload is None:
        raise LabError(f"{where}: no PCI Express capability in its config space: its payload size cannot be read")
    if bus_perf is False:
        raise LabError(f"{where}: the pair asks for pci=pcie_bus_perf (link.mps_policy); the kernel runs without it")
    if payload.mps > payload.mps_supported:
        raise LabError(f"{where}: {payload.describe()}: an MPS the function does not support")
    if payload.mps != declared:
        raise LabError(
            f"{where}: {payload.describe()}, boards.yaml declares max_payload {declared} B: the ceilings follow the "
            "declaration, correct it or the kernel's MPS setting"
        )


def checked(role: Role, device: str, link: Any, where: str) -> str:
    """The function's payload settings for the facts, required to match the pair's link on a real link."""
    payload = read_payload(role, device)
    if link.emulated:
        shown = payload.describe() if payload else "no PCI Express capability"
        return f"{shown} (emulated: not checked)"
    bus_perf = bus_perf_policy(role) if link.mps_policy == "pcie_bus_perf" else None
    require_payload(payload, link.max_payload, where, bus_perf=bus_perf)
    assert payload is not None
    return payload.describe() + ("; kernel pci=pcie_bus_perf" if bus_perf else "")
