"""USB network gadgets on the virtual board: the two ends in their own namespaces, iperf3 across the link,
and the byte counters that prove the traffic took the USB path (and catch it when it did not)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from hil.facts import Facts
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.network.netns import UsbNetLink, usb_network
from hil.lab.network.path import NetEnd
from hil.lab.pair import BoardPair
from hil.lab.usb_gadget import udc
from hil.lab.usb_gadget.gadget import Gadget, network_function
from hil.lab.usb_host import usbhost
from hil.measure import integrity, iperf3, netpath
from hil.verdict.errors import DataCorruption, MeasurementError


@dataclass
class _Pair:
    """The part of a BoardPair usb_network reads: both roles are the virtual board, as on vlab-hs."""

    device: Role
    host: Role
    name: str = "vlab-test"
    facts: Facts = field(default_factory=Facts)
    note = BoardPair.note


@dataclass
class _OnLink:
    pair: _Pair
    gadget: Gadget
    usb_device: usbhost.UsbDevice


@pytest.fixture
def ecm_link(vboard):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    with Gadget(vboard, "dummy_udc.0", [network_function("ecm")]) as gadget:
        device = usbhost.wait_for_device(vboard, gadget.serial, timeout_s=30)
        with usb_network(_OnLink(_Pair(vboard, vboard), gadget, device)) as net:
            yield net


def test_tcp_over_an_ecm_gadget_crosses_the_usb_link_in_both_counters(vboard, ecm_link):
    assert ecm_link.device.netns != ecm_link.host.netns
    with iperf3.server(ecm_link.device):
        measurement = netpath.measure(
            ecm_link.path(device_sends=True),
            lambda: iperf3.tcp(ecm_link.host, ecm_link.device.address, duration_s=2, reverse=True),
        )
    received = measurement.bytes_received
    assert received > 1_000_000 and iperf3.mbps(measurement) > 1
    assert measurement.observed.bytes_moved["tx"] >= received
    assert measurement.observed.bytes_moved["rx"] >= received


def test_traffic_that_takes_the_loopback_path_is_an_error_naming_the_idle_interface(vboard, ecm_link):
    # A client in the gadget's own namespace reaches the gadget's address over lo, not over USB.
    beside = NetEnd(vboard, "lo", ecm_link.device.address, ecm_link.device.netns, ecm_link.device.ip)
    short_cut = UsbNetLink(device=ecm_link.device, host=beside)
    with iperf3.server(ecm_link.device), pytest.raises(MeasurementError, match="did not cross the USB link") as caught:
        netpath.measure(
            short_cut.path(device_sends=False), lambda: iperf3.tcp(beside, ecm_link.device.address, duration_s=1)
        )
    assert f"{ecm_link.device.ifname} on" in str(caught.value) and "rx_bytes moved" in str(caught.value)


@pytest.mark.parametrize("device_sends", [True, False], ids=["gadget sends", "host sends"])
def test_random_data_sent_over_ecm_arrives_whole_and_a_damaged_arrival_is_data_corruption(
    vboard_with_programs, ecm_link, monkeypatch, device_sends
):
    """The TCP cases' check (integrity.over_tcp, hil's tcp_payload at both ends): the file that arrived against
    the one sent. 16 bytes zeroed in what arrived (a gadget that damages a payload after TCP's checksum, an offload
    that recomputes it) is a DataCorruption, injected here on the board after the real transfer."""
    receiver = ecm_link.receiver(device_sends=device_sends)
    sender = ecm_link.device if device_sends else ecm_link.host
    summary = integrity.over_tcp(receiver, sender, receiver.address)
    assert summary.startswith(f"16 MiB of random data over TCP to {receiver.address} arrived whole (SHA-256 ")
    real_matches = integrity.matches

    def damaged_then_compared(expected, original, *copies, timeout):
        for role, path in copies:
            zeros = shell.cmd("dd", "if=/dev/zero", f"of={path}", "bs=1", "seek=1000", "count=16", "conv=notrunc")
            role.run(zeros + " 2>/dev/null", timeout=30)  # 16 zero bytes: random data never has them there
        return real_matches(expected, original, *copies, timeout=timeout)

    monkeypatch.setattr(integrity, "matches", damaged_then_compared)
    with pytest.raises(DataCorruption, match="is not a copy of"):
        integrity.over_tcp(receiver, sender, receiver.address)
    listed = vboard_with_programs.run(f"ls {integrity.SCRATCH}-* 2>/dev/null || true", timeout=30)
    assert not listed.strip(), f"the files are removed: {listed}"
