"""hil.measure.netpath: a network measurement counts only if its traffic shows in the counters of the path
the lab set up (hil.lab.network.path), for every network family.

Runs for real on this PC (iperf3 over the loopback interface stands in for a USB network interface), and
against sysfs counters captured on the virtual board before and after traffic crossed its usb0
(tests/data/netdev, served by `_CapturedSysfs` as the board's `grep -H .` answered them).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hil.lab.network.netns import UsbNetLink
from hil.lab.network.path import Counted, NetEnd, NetPath
from hil.lab.network.usbethernet import Peer, UsbEthernetLink
from hil.measure import iperf3, netdev, netpath
from hil.verdict.errors import MeasurementError
from hil.verdict.measurement import Measurement, Quantity

DATA = Path(__file__).resolve().parents[1] / "data" / "netdev"
UP = (DATA / "vlab-usbnet-up.txt").read_text()
AFTER = (DATA / "vlab-usbnet-after-traffic.txt").read_text()


@dataclass
class _CapturedSysfs:
    """A board whose /sys/class/net/*/statistics answer from captures, one capture per read, in order."""

    captures: list[str]
    label: str = "vlab/board (vboard)"
    reads: list[str] = field(default_factory=list)

    def run_status(self, command: str, *, timeout: float = 60.0) -> tuple[int, str]:
        files = shlex.split(command)[3:]  # grep -H . FILE...
        capture = self.captures.pop(0) if len(self.captures) > 1 else self.captures[0]
        lines = [line for line in capture.splitlines() if line.rsplit(":", 1)[0] in files]
        self.reads.append(command)
        return 0, "\n".join(lines)


def _moved(counter: str) -> int:
    return netdev.moved(
        netdev.parse_statistics(UP, names=netdev.COUNTERS), netdev.parse_statistics(AFTER, names=netdev.COUNTERS)
    )[counter]


def _tool_says(received: int):
    return lambda: Measurement({"throughput": Quantity(1e6, "bit/s")}, raw="tool output", bytes_received=received)


def _usb0(*captures: str) -> NetEnd:
    return NetEnd(_CapturedSysfs(list(captures)), "usb0", "10.77.0.1")  # type: ignore[arg-type]


@pytest.mark.parametrize("board_sends", [True, False])
def test_a_run_over_the_interface_counts_with_its_counters_stored(role, board_sends):
    link = UsbEthernetLink(
        board=NetEnd(role, "lo", "127.0.0.1"), peer=Peer(role, "127.0.0.1", "127.0.0.1"), ethernet_mbps=None
    )
    with iperf3.server_on_free_port(link.peer, bind=link.peer.listen) as port:
        measurement = netpath.measure(
            link.path(board_sends=board_sends),
            lambda: iperf3.tcp(link.board, link.peer.address, duration_s=1, reverse=not board_sends, port=port),
        )
    stored = measurement.observed.interface
    assert stored is not None and stored.interface == "lo" and stored.role == role.label
    counter = "tx_bytes" if board_sends else "rx_bytes"
    assert stored.after[counter] - stored.before[counter] >= measurement.bytes_received > 0
    assert "lo: rx_errors +0, tx_errors +0" in netpath.counters_moved(measurement)


def test_traffic_seen_on_both_ends_of_a_gadget_link_counts_and_what_moved_is_kept():
    link = UsbNetLink(device=_usb0(UP, AFTER), host=_usb0(UP, AFTER))
    measurement = netpath.measure(link.path(device_sends=True), _tool_says(_moved("tx_bytes")))
    assert measurement.observed.bytes_moved == {"tx": _moved("tx_bytes"), "rx": _moved("rx_bytes")}
    assert _moved("tx_bytes") > 60_000_000
    assert measurement.observed.interface is None  # a gadget link records no error counters


@pytest.mark.parametrize("device_sends", [True, False])
def test_bytes_that_did_not_cross_the_usb_link_are_a_measurement_error_naming_the_short_interface(device_sends):
    # The tool says more arrived than the counters moved: the traffic went another way (loopback).
    idle, busy = _usb0(UP), _usb0(UP, AFTER)
    link = UsbNetLink(device=idle, host=busy)  # the device's interface stands still: tx or rx, it is short
    with pytest.raises(MeasurementError, match="did not cross the USB link: 4800 bytes received") as caught:
        netpath.measure(link.path(device_sends=device_sends), _tool_says(4800))
    direction = "tx" if device_sends else "rx"
    assert f"usb0 on vlab/board (vboard) {direction}_bytes moved 0 bytes" in str(caught.value)
    assert caught.value.raw_output == "tool output"


def test_an_adapter_whose_counters_stand_still_is_named_with_its_counter(role):
    # iperf3 really runs over this PC's loopback; the adapter's counters (a real capture) do not move.
    adapter = _usb0(UP)
    path = NetPath("the USB Ethernet adapter", (Counted(adapter, "tx"),), recorded=adapter)
    end = Peer(role, "127.0.0.1", "127.0.0.1")
    with (
        iperf3.server_on_free_port(end, bind="127.0.0.1") as port,
        pytest.raises(
            MeasurementError, match=r"did not cross the USB Ethernet adapter.*usb0.*tx_bytes moved 0"
        ) as caught,
    ):
        netpath.measure(path, lambda: iperf3.tcp(end, "127.0.0.1", duration_s=1, port=port))
    assert '"sum_received"' in caught.value.raw_output  # the iperf3 document comes with the error


def test_counters_are_read_once_per_interface_and_only_the_recorded_one_in_full():
    adapter = _usb0(UP, AFTER)
    path = NetPath("the adapter", (Counted(adapter, "rx"),), recorded=adapter)
    netpath.measure(path, _tool_says(_moved("rx_bytes")))
    assert len(adapter.role.reads) == 2 and all("rx_errors" in read for read in adapter.role.reads)
    bytes_only = _usb0(UP, AFTER)
    netpath.measure(NetPath("the link", (Counted(bytes_only, "rx"),)), _tool_says(1))
    assert all("rx_errors" not in read for read in bytes_only.role.reads)


def test_a_measurement_that_does_not_say_what_it_received_is_an_error():
    adapter = _usb0(UP, AFTER)
    with pytest.raises(MeasurementError, match="says nothing about the bytes it received"):
        netpath.measure(
            NetPath("the link", (Counted(adapter, "rx"),)),
            lambda: Measurement({"throughput": Quantity(1e6, "bit/s")}, raw="x"),
        )
