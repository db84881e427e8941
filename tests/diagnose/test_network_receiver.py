"""hil.diagnose.network reads the end that RECEIVES, where a loss happens (its interface's receive path and RPS
masks, its sockets), not the board's when the board sends: run for real on this PC (hil's LocalShellDriver),
iperf3 UDP from the "board" to a server on the loopback, the board's end named on another interface."""

from __future__ import annotations

import re
import time

import pytest
from labgrid import Environment

from hil.diagnose.network import NetworkDiagnosis
from hil.errors import LabError
from hil.lab.board.role import Role
from hil.lab.network.path import NetEnd
from hil.lab.network.usbethernet import Peer
from hil.measure import iperf3
from tests.lab.conftest import LOCAL_ENV

LOOPBACK = "127.0.0.1"


@pytest.fixture(scope="module")
def roles(tmp_path_factory):
    """Two roles on this PC: the board's ("device") and the receiving end's ("host")."""
    path = tmp_path_factory.mktemp("lab") / "env.yaml"
    path.write_text(LOCAL_ENV)
    env = Environment(config_file=str(path))
    target = env.get_target("lab-pc")
    yield Role("device", target, "pc-pair"), Role("host", target, "pc-pair")
    env.cleanup()


def diagnosed(board: NetEnd, receiver: NetEnd | Peer, server: NetEnd) -> list[str]:
    lines: list[str] = []
    with iperf3.server_on_free_port(server, bind=LOOPBACK) as port:
        transfer = lambda: iperf3.udp(board, LOOPBACK, rate_mbps=10, duration_s=1, port=port)  # noqa: E731
        NetworkDiagnosis(board, receiver, transfer)(time.monotonic() + 120, lines)
    return lines


@pytest.mark.parametrize("peer", [False, True], ids=["netend", "usb-ethernet-peer"])
def test_the_board_sending_is_diagnosed_on_the_receiving_interface(roles, peer):
    device, host = roles
    board = NetEnd(device, "eth0", "192.0.2.2")  # the board's interface: the sender's, not where a loss happens
    receiver = NetEnd(host, "lo", LOOPBACK)
    lines = diagnosed(board, Peer(host, LOOPBACK, LOOPBACK) if peer else receiver, receiver)
    assert lines[0].startswith("the transfer again: ") and "% lost" in lines[0], lines
    [path] = [line for line in lines if line.startswith("the receive path (NET_RX softirqs) ran on ")]
    assert "; RPS of lo: " in path and "(rx-0 " in path, lines  # the loopback's one rx queue, not eth0's
    assert any(line.startswith("the receiving sockets dropped ") for line in lines), lines
    assert [line.split(":")[0] for line in lines if line.startswith("operating point")] == [
        "operating point of device",
        "operating point of host",
    ]


def test_a_peer_address_no_interface_holds_is_a_lab_error(roles):
    with pytest.raises(LabError, match=re.escape("no interface holds 192.0.2.254 (ethernet.peer_listen)")):
        Peer(roles[1], "192.0.2.254", "192.0.2.254").end()
