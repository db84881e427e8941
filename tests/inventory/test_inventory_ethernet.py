"""USB Ethernet pairs in boards.yaml: the `peer` role (the lab PC at the far end of the adapter's cable) and
the address settings, checked when the file is loaded."""

from __future__ import annotations

import pytest

from hil.errors import InventoryError
from hil.inventory.loader import load_inventory

PAIR = """\
pairs:
  nic:
    env: env.yaml
    roles:
      host: {target: vboard}
      device: {target: vboard}
      peer: {target: vboard}
    link: {type: usb, speed: super}
    settings:
      ethernet.serial: adapter-1
      ethernet.board_address: 192.168.1.2/24
      ethernet.peer_address: 192.168.1.1
    metrics:
      usb.ethernet.tcp.tx: {min: 700}
"""


def test_a_usb_pair_may_name_a_peer_role(write_boards):
    board = load_inventory(write_boards(PAIR)).boards["nic"]
    assert set(board.config.roles) == {"host", "device", "peer"}
    assert board.setting("ethernet.peer_address") == "192.168.1.1"


def test_a_pcie_pair_has_no_peer(write_boards):
    text = (
        PAIR.replace("host:", "rc:")
        .replace("device:", "ep:")
        .replace("{type: usb, speed: super}", "{type: pcie, gen: 3, lanes: 4}")
    )
    with pytest.raises(InventoryError, match=r"a pcie pair needs roles \['ep', 'rc'\], found \['ep', 'peer', 'rc'\]"):
        load_inventory(write_boards(text))


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("192.168.1.2/24", "192.168.1.2", "ethernet.board_address '192.168.1.2' needs its prefix length"),
        ("peer_address: 192.168.1.1", "peer_address: 192.168.7.1", "192.168.7.1 is outside ethernet.board_address's"),
        ("peer_address: 192.168.1.1", "peer_address: 192.168.1", "does not appear to be an IPv4 or IPv6 address"),
        ("ethernet.serial: adapter-1", "ethernet.peer_listen: localhost", "'localhost' does not appear to be an"),
    ],
)
def test_address_settings_that_cannot_work_are_refused_at_load_time(write_boards, old, new, problem):
    with pytest.raises(InventoryError) as caught:
        load_inventory(write_boards(PAIR.replace(old, new)))
    assert "pairs/nic/settings/ethernet." in str(caught.value) and problem in str(caught.value)
