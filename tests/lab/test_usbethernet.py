"""The USB Ethernet link's checks, run for real on this PC (a role with hil's LocalShellDriver): iperf3
over the loopback interface stands in for the adapter, with the counters that prove where traffic went."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hil.errors import LabError
from hil.lab.background import BackgroundError
from hil.lab.netns import NetEnd
from hil.lab.usbethernet import Peer, UsbEthernetLink, ethernet_speed, route_device, usb_ethernet
from hil.measure import iperf3, netdev
from hil.verdict.errors import MeasurementError

DATA = Path(__file__).resolve().parents[1] / "data" / "netdev"


def _loopback_link(role) -> UsbEthernetLink:
    return UsbEthernetLink(
        board=NetEnd(role, "lo", "127.0.0.1"), peer=Peer(role, "127.0.0.1", "127.0.0.1"), link_rate_mbps=1000.0
    )


@pytest.mark.parametrize("board_sends", [True, False])
def test_a_run_that_crossed_the_interface_counts_with_its_counters_stored(role, board_sends):
    link = _loopback_link(role)
    with iperf3.server_on_free_port(link.peer, bind=link.peer.listen) as port:
        measurement = link.measure(
            lambda: iperf3.tcp(link.board, link.peer.address, duration_s=1, reverse=not board_sends, port=port),
            board_sends=board_sends,
        )
    stored = measurement.details[netdev.DETAILS_KEY]
    assert stored["interface"] == "lo" and stored["role"] == role.label
    counter = "tx_bytes" if board_sends else "rx_bytes"
    assert stored["after"][counter] - stored["before"][counter] >= measurement.details["bytes_received"] > 0
    assert "lo: rx_errors +0, tx_errors +0" in link.counters_moved(measurement)


@dataclass
class _IdleEnd:
    """An interface the traffic does not cross: its counters (a real capture of the board's usb0) stand still."""

    role: object
    ifname: str = "usb0"
    address: str = "127.0.0.1"
    counters: dict[str, int] = field(
        default_factory=lambda: netdev.parse_statistics(
            (DATA / "vlab-usbnet-up.txt").read_text(), names=netdev.COUNTERS
        )
    )

    def statistics(self) -> dict[str, int]:
        return dict(self.counters)

    def wrap(self, command: str) -> str:
        return command


def test_a_run_that_did_not_cross_the_adapter_is_a_measurement_error_naming_it(role):
    # iperf3 really runs over this PC's loopback; the adapter's counters do not move.
    link = UsbEthernetLink(board=_IdleEnd(role), peer=Peer(role, "127.0.0.1", "127.0.0.1"), link_rate_mbps=1000.0)  # type: ignore[arg-type]
    with (
        iperf3.server_on_free_port(link.peer, bind="127.0.0.1") as port,
        pytest.raises(
            MeasurementError, match=r"did not cross the USB Ethernet adapter.*usb0.*tx_bytes moved 0"
        ) as caught,
    ):
        link.measure(lambda: iperf3.tcp(role_end(role), "127.0.0.1", duration_s=1, port=port), board_sends=True)
    assert '"sum_received"' in caught.value.raw_output  # the iperf3 document comes with the error


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
    """What usb_ethernet reads before it touches a board: a pair whose ethernet settings are unset."""

    host: object
    name: str = "pc-pair"

    def role(self, name: str) -> object:
        return self.host

    def setting(self, name: str) -> object:
        return ""


def test_a_pair_without_the_adapters_serial_is_told_which_setting_to_set(role):
    with pytest.raises(LabError, match=r"set ethernet\.serial in boards\.yaml"), usb_ethernet(_Pair(role)):  # type: ignore[arg-type]
        pass
