"""boards.yaml `tuning:` blocks: what a profile may say, and the mistakes refused before any board is touched."""

from __future__ import annotations

import pytest

from hil.errors import InventoryError
from hil.inventory.loader import load_inventory

PROFILE = """\
    tuning:
      roles: [device]
      cpu_governor: performance
      cpu_freq: max
      cpus_online: true
      pcie_aspm: performance
      sysctl:
        net.core.rmem_max: 16777216
        net.ipv4.tcp_rmem: 4096 87380 6291456
"""


def _with_tuning(boards_yaml: str, profile: str) -> str:
    anchor = "    link: {type: usb, speed: high, udc: dummy_udc.0}\n"
    assert boards_yaml.count(anchor) == 1
    return boards_yaml.replace(anchor, anchor + profile)


def test_a_profile_loads_with_its_values(write_boards, boards_yaml):
    loaded = load_inventory(write_boards(_with_tuning(boards_yaml, PROFILE)))
    tuning = loaded.boards["vpair"].config.tuning
    assert tuning.roles == ["device"] and tuning.cpu_governor == "performance" and tuning.cpu_freq == "max"
    assert tuning.sysctl == {"net.core.rmem_max": 16777216, "net.ipv4.tcp_rmem": "4096 87380 6291456"}


def test_a_pair_without_a_profile_has_none(write_boards, boards_yaml):
    assert load_inventory(write_boards(boards_yaml)).boards["vpair"].config.tuning is None


@pytest.mark.parametrize(
    ("line", "key", "problem"),
    [
        ("      cpu_governer: performance\n", "tuning/cpu_governer", "unknown key"),
        ("      cpu_governor: performance; reboot\n", "tuning/cpu_governor", "should match pattern"),
        ("      cpu_freq: fast\n", "tuning/cpu_freq", "max"),
        ("      cpu_freq: 0\n", "tuning/cpu_freq", "greater than 0"),
        ("      pcie_aspm: off\n", "tuning/pcie_aspm", "performance"),
        ("      sysctl: {net/core/../../x: 1}\n", "tuning/sysctl/net/core/../../x", "should match pattern"),
        ("      sysctl: {net.core.rmem_max: 1$(reboot)}\n", "tuning/sysctl/net.core.rmem_max", "should match"),
        ("      roles: [board]\n", "tuning/roles/0", "'host', 'device', 'rc' or 'ep'"),
        ("      block_queue: {'sd*; reboot': {scheduler: none}}\n", "tuning/block_queue/sd*; reboot", "pattern"),
        ("      block_queue: {sda: {max_sectors_kb: 0}}\n", "tuning/block_queue/sda/max_sectors_kb", "greater than 0"),
        ("      block_queue: {sda: {elevator: none}}\n", "tuning/block_queue/sda/elevator", "unknown key"),
        ("      devfreq: {dmc: {freq: fast}}\n", "tuning/devfreq/dmc/freq", "max"),
        ("      devfreq: {../dmc: {governor: performance}}\n", "tuning/devfreq/../dmc", "pattern"),
    ],
)
def test_a_bad_profile_names_the_key(write_boards, boards_yaml, line, key, problem):
    path = write_boards(_with_tuning(boards_yaml, "    tuning:\n" + line))
    with pytest.raises(InventoryError) as caught:
        load_inventory(path)
    assert key in caught.value.key and problem in caught.value.problem, str(caught.value)


def test_a_profile_for_a_role_the_pair_lacks_is_refused(write_boards, boards_yaml):
    path = write_boards(_with_tuning(boards_yaml, "    tuning:\n      roles: [rc]\n"))
    with pytest.raises(InventoryError, match=r"pairs/vpair: tuning names roles \['rc'\] the pair does not have"):
        load_inventory(path)
