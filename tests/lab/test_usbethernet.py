"""The USB Ethernet link's set-up checks, run for real on this PC (a role with hil's LocalShellDriver); the
byte-counter proof of its runs is tests/lab/test_netpath.py."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from hil.errors import LabError
from hil.inventory.loader import load_inventory
from hil.lab.board.background import BackgroundError
from hil.lab.network.usbethernet import Peer, ethernet_speed, route_device, usb_ethernet
from hil.measure import iperf3

DATA = Path(__file__).resolve().parents[1] / "data" / "netdev"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def role_end(role) -> Peer:
    return Peer(role, "127.0.0.1", "127.0.0.1")


def test_a_server_finds_another_port_when_its_first_is_taken_and_says_so_when_none_is_free(role):
    end = role_end(role)
    with iperf3.server_on_free_port(end, bind="127.0.0.1") as taken:
        with iperf3.server_on_free_port(end, bind="127.0.0.1") as other:
            assert other != taken
            assert iperf3.mbps(iperf3.tcp(end, "127.0.0.1", duration_s=1, port=other)) > 0
        with (
            pytest.raises(BackgroundError, match="exited before it was ready") as caught,
            iperf3.server_on_free_port(end, bind="127.0.0.1", ports=[taken], tries=2),
        ):
            pass
        assert iperf3.PORT_IN_USE in caught.value.output


def test_the_route_and_the_speed_are_read_from_the_kernel(role):
    assert route_device(role, "127.0.0.1") == "lo"
    assert ethernet_speed(role, "lo") is None  # loopback reports no rate (EINVAL), as cdc_ether under QEMU


@dataclass
class _Pair:
    """What usb_ethernet reads before it touches a board: the example pair's settings without the adapter's serial."""

    host: object
    name: str = "rk3399-evb-usb3-ethernet"

    def role(self, name: str) -> object:
        return self.host

    def settings(self, view, *, required=(), example=""):
        inventory = load_inventory(EXAMPLES / "boards-usb-ethernet.yaml")
        board = inventory.boards[self.name]
        settings = {key: value for key, value in board.config.settings.items() if key != "ethernet.serial"}
        board = replace(board, config=board.config.model_copy(update={"settings": settings}))
        return board.settings(view, required=required, example=example)


def test_a_pair_without_the_adapters_serial_is_told_which_setting_to_set(role):
    told = r"rk3399-evb-usb3-ethernet: set ethernet\.serial in its settings in boards\.yaml"
    with pytest.raises(LabError, match=told), usb_ethernet(_Pair(role)):  # type: ignore[arg-type]
        pass
