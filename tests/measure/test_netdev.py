"""Interface counters (hil.measure.netdev) on real captures: the virtual board's USB Ethernet adapter
(QEMU usb-net, cdc_ether) before and after iperf3 ran through it, and this PC's loopback."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.measure import netdev
from hil.verdict.errors import ParseError
from hil.verdict.measurement import InterfaceCounters, Observed
from hil.verdict.result import Sample

DATA = Path(__file__).resolve().parents[1] / "data" / "netdev"


def _capture(name: str) -> str:
    return (DATA / f"{name}.txt").read_text()


def _counters(name: str) -> dict[str, int]:
    return netdev.parse_statistics(_capture(name), names=netdev.COUNTERS)


@pytest.mark.parametrize("name", ["vlab-usbnet-up", "vlab-usbnet-after-traffic", "pc-loopback"])
def test_every_counter_of_a_capture_is_read(name):
    counters = _counters(name)
    assert set(counters) == set(netdev.COUNTERS)
    for line in _capture(name).splitlines():  # the figure is the one printed after the file's name
        path, _, value = line.rpartition(":")
        assert counters[path.rsplit("/", 1)[1]] == int(value)


def test_the_capture_command_is_the_one_hil_runs():
    source = dict(line.split(": ", 1) for line in (DATA / "vlab-usbnet-up.source").read_text().splitlines())
    assert source["command"] == netdev.statistics_command("usb0")


def test_traffic_moved_the_adapters_byte_counters():
    moved = netdev.moved(_counters("vlab-usbnet-up"), _counters("vlab-usbnet-after-traffic"))
    assert moved["rx_bytes"] > 10_000_000 and moved["tx_bytes"] > 10_000_000


def test_an_interface_that_does_not_exist_is_a_parse_error_with_the_output():
    text = _capture("vlab-no-such-interface")
    with pytest.raises(ParseError, match="unexpected line") as caught:
        netdev.parse_statistics(text, names=netdev.COUNTERS)
    assert caught.value.raw_output == text


def test_a_counter_missing_from_the_output_is_named():
    text = "".join(line for line in _capture("pc-loopback").splitlines(keepends=True) if "rx_errors" not in line)
    with pytest.raises(ParseError, match="no rx_errors"):
        netdev.parse_statistics(text, names=netdev.COUNTERS)


def test_counters_of_two_interfaces_in_one_output_are_refused():
    # Built from two real captures: half the counters of the board's usb0, half of the PC's lo.
    board, pc = _capture("vlab-usbnet-up").splitlines(), _capture("pc-loopback").splitlines()
    with pytest.raises(ParseError, match="several interfaces"):
        netdev.parse_statistics("\n".join(board[:4] + pc[4:]), names=netdev.COUNTERS)


def test_counters_that_went_backwards_are_an_error():
    with pytest.raises(ParseError, match=r"went backwards .*rx_bytes"):
        netdev.moved(_counters("vlab-usbnet-after-traffic"), _counters("vlab-usbnet-up"))


def _sample(before: str, after: str) -> Sample:
    record = InterfaceCounters("usb0", "vlab/host", _counters(before), _counters(after))
    return Sample(value=1.0, started=0.0, duration_s=1.0, observed=Observed(interface=record))


def test_the_summary_totals_errors_and_drops_and_flags_only_errors():
    before, after = _counters("vlab-usbnet-up"), _counters("vlab-usbnet-after-traffic")
    line, grew = netdev.summary([_sample("vlab-usbnet-up", "vlab-usbnet-after-traffic")])
    for name in (*netdev.ERRORS, *netdev.DROPS):
        assert f"{name} +{after[name] - before[name]}" in line
    assert grew == [f"{name} +{after[name] - before[name]}" for name in netdev.ERRORS if after[name] > before[name]]
    assert line.startswith("usb0: ") and line.endswith("over 1 runs")


def test_no_growth_flags_nothing_and_samples_without_counters_give_no_summary():
    assert netdev.summary([_sample("vlab-usbnet-after-traffic", "vlab-usbnet-after-traffic")])[1] == []
    assert netdev.summary([Sample(value=1.0, started=0.0, duration_s=1.0)]) is None
