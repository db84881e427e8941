"""hil.lab.pcie.payload: the MPS read back from config space (od run for real on this PC, on the virtual
board's dumps in tests/data/pcie_config) and checked against the pair's link."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from hil.errors import LabError
from hil.lab.pcie import payload

DATA = Path(__file__).resolve().parents[1] / "data" / "pcie_config"


def _function(tmp_path: Path, capture: str) -> str:
    """A directory shaped like /sys/bus/pci/devices/<bdf> whose `config` holds a captured config space."""
    device = tmp_path / capture
    device.mkdir()
    (device / "config").write_bytes(bytes(int(word, 16) for word in (DATA / f"{capture}.txt").read_text().split()))
    return str(device)


def test_the_payload_is_read_from_the_pcie_capability(role, tmp_path):
    # QEMU's NVMe controller: PCIe capability at 0x80 after MSI-X at 0x40; DevCap and DevCtl say 128 B.
    found = payload.read_payload(role, _function(tmp_path, "vlab-nvme-endpoint"))
    assert (found.mps, found.mps_supported, found.mrrs) == (128, 128, 128)
    assert found.describe().startswith("MPS 128 B (supports up to 128 B), MRRS 128 B at vlab-nvme-endpoint")
    assert payload.read_payload(role, _function(tmp_path, "vlab-root-port")).mps == 128


def test_a_conventional_pci_function_has_no_payload_to_read(role, tmp_path):
    assert payload.read_payload(role, _function(tmp_path, "vlab-ivshmem")) is None


def test_a_declaration_the_function_does_not_run_is_an_error_on_a_real_link(role, tmp_path):
    device = _function(tmp_path, "vlab-nvme-endpoint")
    real = SimpleNamespace(emulated=False, max_payload=256, mps_policy=None)
    with pytest.raises(LabError, match=r"MPS 128 B .*boards\.yaml declares max_payload 256 B"):
        payload.checked(role, device, real, "rk3588-nvme /dev/nvme0n1")
    assert payload.checked(role, device, SimpleNamespace(**{**vars(real), "max_payload": 128}), "x").startswith(
        "MPS 128"
    )
    emulated = SimpleNamespace(emulated=True, max_payload=256, mps_policy=None)
    assert payload.checked(role, device, emulated, "vlab").endswith("(emulated: not checked)")
    ivshmem = payload.checked(role, _function(tmp_path, "vlab-ivshmem"), emulated, "vlab")
    assert ivshmem == "no PCI Express capability (emulated: not checked)"


def test_the_bus_perf_policy_asked_for_must_be_the_kernel_s():
    found = payload.Payload("/sys/bus/pci/devices/0000:01:00.0", 256, 512, 512)
    with pytest.raises(LabError, match=r"asks for pci=pcie_bus_perf .* the kernel runs without it"):
        payload.require_payload(found, 256, "ep", bus_perf=False)
    payload.require_payload(found, 256, "ep", bus_perf=True)
    with pytest.raises(LabError, match="no PCI Express capability"):
        payload.require_payload(None, 256, "ep")


def test_a_config_space_that_is_not_root_readable_is_an_error(role, tmp_path):
    device = tmp_path / "f"
    device.mkdir()
    (device / "config").write_bytes(bytes(range(48)))  # what a non-root reader of a short dump gets
    with pytest.raises(LabError, match="only 48 bytes of config space readable"):
        payload.read_payload(role, str(device))
