"""hil.lab.pcie.link: the trained link from sysfs texts and the check against the pair's specification.

The texts are the kernel's formats (drivers/pci/pci-sysfs.c: "%s PCIe" of the speed name, the width as a
number); "2.5 GT/s PCIe" and "1" are what the virtual board's QEMU NVMe shows.
"""

from __future__ import annotations

import pytest

from hil.errors import LabError
from hil.lab.pcie import link as pcie_link
from hil.lab.storage import nvme

DEVICE = "/sys/devices/pci0000:00/0000:00:02.0/0000:01:00.0"


def _state(speed: str, width: str, max_speed: str = "8.0 GT/s PCIe", max_width: str = "4") -> pcie_link.PcieLinkState:
    return pcie_link.parse_link(
        DEVICE,
        {
            "current_link_speed": speed,
            "current_link_width": width,
            "max_link_speed": max_speed,
            "max_link_width": max_width,
        },
    )


def test_reads_generation_and_width():
    state = _state("8.0 GT/s PCIe", "4")
    assert (state.gen, state.width, state.speed_gts) == (3, 4, 8.0)
    assert state.describe().startswith("Gen3 x4 (8 GT/s; capable of 8 GT/s x4) at 0000:01:00.0")


def test_link_at_its_specification_passes():
    pcie_link.require_link(_state("8.0 GT/s PCIe", "4"), 3, 4, "rk3588")


@pytest.mark.parametrize(("speed", "width"), [("5.0 GT/s PCIe", "4"), ("8.0 GT/s PCIe", "2")])
def test_link_below_its_specification_is_an_error_naming_both(speed, width):
    with pytest.raises(LabError, match=r"trained at Gen[23] x[24] .*below the specified Gen3 x4"):
        pcie_link.require_link(_state(speed, width), 3, 4, "rk3588")


@pytest.mark.parametrize("speed", ["Unknown", "", "fast"])
def test_unreadable_link_is_an_error_when_a_specification_is_given(speed):
    state = _state(speed, "0")
    assert state.gen is None and state.width is None
    with pytest.raises(LabError, match="sysfs gives link state unknown"):
        pcie_link.require_link(state, 3, 4, "rk3588")


def test_namespace_node_names_its_controller():
    assert nvme.controller_of("/dev/nvme1n2") == "nvme1"
    with pytest.raises(LabError, match="not an NVMe namespace"):
        nvme.controller_of("/dev/sda")
