"""The virtual board's USB Ethernet adapter (QEMU usb-net on xHCI): what hil records about it, and the
set-ups it refuses before measuring, which the suite's cases (testcases/usb_host/test_usb_ethernet.py) never
meet: an adapter that negotiated another rate than the pair specifies, a peer the board routes to through
another interface, and a peer that does not answer."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import pytest

from hil.errors import LabError
from hil.facts import Facts
from hil.inventory.loader import load_inventory
from hil.lab.board.role import Role
from hil.lab.network.usbethernet import usb_ethernet
from hil.lab.pair import BoardPair
from hil.lab.usb_gadget import udc
from hil.measure import iperf3, netpath

VLAB_USBNET = load_inventory(Path(__file__).resolve().parents[2] / "boards.yaml").boards["vlab-usbnet"]


View = TypeVar("View")


@dataclass
class _Link:
    speed: str = "full"


@dataclass
class _Pair:
    """The part of a BoardPair usb_ethernet reads, with vlab-usbnet's settings (some overridden)."""

    host: Role
    peer: Role
    overrides: dict[str, Any] = field(default_factory=dict)
    name: str = "vlab-test"
    link: _Link = field(default_factory=_Link)
    facts: Facts = field(default_factory=Facts)

    def role(self, name: str) -> Role:
        return {"host": self.host, "peer": self.peer}[name]

    record_link = BoardPair.record_link
    note = BoardPair.note

    def settings(self, view: type[View], **kwargs: Any) -> View:
        settings = {**VLAB_USBNET.config.settings, **self.overrides}
        board = replace(VLAB_USBNET, config=VLAB_USBNET.config.model_copy(update={"settings": settings}))
        return board.settings(view, **kwargs)


@pytest.fixture
def board(vboard, vlab_env):
    udc.ensure_module(vboard, "xhci-pci", {})
    return vboard, Role("peer", vlab_env.get_target("lab-pc"), "vlab-test")


def test_the_adapter_is_found_recorded_and_carries_iperf3_to_the_pcs_loopback(board):
    vboard, peer = board
    pair = _Pair(vboard, peer)
    with usb_ethernet(pair) as nic, iperf3.server_on_free_port(nic.peer, bind=nic.peer.listen) as port:
        measurement = netpath.measure(
            nic.path(board_sends=True), lambda: iperf3.tcp(nic.board, nic.peer.address, duration_s=1, port=port)
        )
        assert vboard.run(f"ip -o addr show dev {nic.board.ifname}").count("10.0.2.15/24") == 1
    assert iperf3.mbps(measurement) > 1
    assert pair.facts.notes["usb_ethernet_driver"] == "cdc_ether"
    assert pair.facts.link_speed == "12 Mb/s (full)"
    assert pair.facts.notes["ethernet_speed"] == "not reported by the driver"
    assert "serial hil-vlab-net" in pair.facts.notes["usb_ethernet"]
    assert "10.0.2.15" not in vboard.run(f"ip -o addr show dev {nic.board.ifname}")  # removed on the way out


def test_an_adapter_that_negotiated_another_rate_is_an_error_naming_both(board):
    pair = _Pair(*board, overrides={"ethernet.link_mbps": 1000})
    with (
        pytest.raises(LabError, match=r"negotiated no reported rate, the pair specifies 1000 Mbit/s"),
        usb_ethernet(pair),
    ):
        pass


def test_a_peer_the_board_reaches_another_way_is_an_error_naming_the_interface(board):
    # 127.0.0.1 is the board's own loopback: the route goes through lo, never through the adapter.
    pair = _Pair(*board, overrides={"ethernet.peer_address": "127.0.0.1"})
    with (
        pytest.raises(LabError, match=r"routes 127\.0\.0\.1 .* through lo, not the USB Ethernet adapter's usb"),
        usb_ethernet(pair),
    ):
        pass


def test_a_peer_that_does_not_answer_is_an_error_before_any_run(board):
    # In the adapter's network, so routed through it, but no one (QEMU's user network neither) has it.
    pair = _Pair(*board, overrides={"ethernet.peer_address": "10.0.2.99"})
    with pytest.raises(LabError, match=r"the peer 10\.0\.2\.99 does not answer through usb"), usb_ethernet(pair):
        pass
