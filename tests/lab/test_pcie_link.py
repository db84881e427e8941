"""PCIe link facts from sysfs, read through a real Role (LocalShellDriver) from a sysfs tree built in a tmp dir
with the files' real formats ("8.0 GT/s PCIe" since Linux 5.x, "5 GT/s" before)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hil.errors import LabError
from hil.lab.board.role import Role
from hil.lab.pcie.link import LinkBelowSpec
from hil.lab.pcie.link import read_trained as read_link
from hil.lab.pcie.link import require_declared as require_link

BDF = "0000:01:00.0"
GEN3_X4 = SimpleNamespace(gen=3, lanes=4)


@pytest.fixture
def role(env):
    return Role("rc", env.get_target("lab-pc"), "pcie-pair")


def _sysfs(tmp_path, speed: str, width: str, max_speed: str = "8.0 GT/s PCIe", max_width: str = "4"):
    device = tmp_path / BDF
    device.mkdir()
    for name, value in {
        "current_link_speed": speed,
        "current_link_width": width,
        "max_link_speed": max_speed,
        "max_link_width": max_width,
    }.items():
        (device / name).write_text(value + "\n")
    return str(tmp_path)


def test_a_link_trained_as_declared_passes(role, tmp_path):
    link = require_link(role, BDF, GEN3_X4, sysfs=_sysfs(tmp_path, "8.0 GT/s PCIe", "4"))
    assert (link.gen, link.lanes, link.max_gen, link.max_lanes) == (3, 4, 3, 4)


def test_older_kernels_speed_format_is_read(role, tmp_path):
    link = read_link(role, BDF, sysfs=_sysfs(tmp_path, "5 GT/s", "1", "8 GT/s", "4"))
    assert (link.gen, link.lanes, link.max_gen) == (2, 1, 3)


def test_a_link_trained_below_the_declaration_names_both(role, tmp_path):
    with pytest.raises(LinkBelowSpec) as caught:
        require_link(role, BDF, GEN3_X4, sysfs=_sysfs(tmp_path, "5.0 GT/s PCIe", "1"))
    message = str(caught.value)
    assert "trained below" in message
    assert "trained Gen2 x1" in message and "declared Gen3 x4" in message
    assert isinstance(caught.value, LabError)


def test_fewer_lanes_alone_is_below(role, tmp_path):
    with pytest.raises(LinkBelowSpec, match=r"trained Gen3 x2 .* declared Gen3 x4"):
        require_link(role, BDF, GEN3_X4, sysfs=_sysfs(tmp_path, "8.0 GT/s PCIe", "2"))


def test_a_link_above_the_declaration_asks_to_correct_it(role, tmp_path):
    with pytest.raises(LinkBelowSpec, match="correct the declaration"):
        require_link(role, BDF, SimpleNamespace(gen=2, lanes=4), sysfs=_sysfs(tmp_path, "8.0 GT/s PCIe", "4"))


def test_a_link_that_is_down_is_a_lab_error(role, tmp_path):
    with pytest.raises(LabError, match="current_link_speed 'Unknown' is not a PCIe link state"):
        read_link(role, BDF, sysfs=_sysfs(tmp_path, "Unknown", "0"))


def test_a_missing_device_is_a_lab_error_naming_the_file(role, tmp_path):
    with pytest.raises(LabError, match="current_link_speed"):
        read_link(role, BDF, sysfs=str(tmp_path))


def test_an_address_that_is_no_pci_address_is_refused(role, tmp_path):
    with pytest.raises(ValueError, match="PCI address"):
        read_link(role, "../../etc", sysfs=str(tmp_path))
