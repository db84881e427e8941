"""UsbNetLink.measure: a measurement counts only if the interfaces' byte counters show the traffic."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from hil.lab.netns import UsbNetLink
from hil.verdict.errors import MeasurementError
from hil.verdict.measurement import Measurement, Quantity


@dataclass
class _Role:
    label: str = "pair/role (board)"


@dataclass
class _End:
    """Stands in for a NetEnd: counters that move by what each call says (rx, tx)."""

    ifname: str
    moves: list[tuple[int, int]]
    role: _Role = field(default_factory=_Role)
    rx: int = 1000
    tx: int = 2000

    def counters(self) -> tuple[int, int]:
        return self.rx, self.tx

    def transfer(self) -> None:
        rx, tx = self.moves.pop(0)
        self.rx += rx
        self.tx += tx


def _run(link: UsbNetLink, received: int):
    def sample() -> Measurement:
        link.device.transfer()
        link.host.transfer()
        return Measurement(
            {"throughput": Quantity(1e6, "bit/s")}, raw="iperf3 output", details={"bytes_received": received}
        )

    return sample


def test_traffic_seen_on_both_interfaces_counts_and_the_counters_are_kept():
    link = UsbNetLink(device=_End("usb0", [(100, 5000)]), host=_End("usb1", [(5000, 100)]))  # type: ignore[arg-type]
    measurement = link.measure(_run(link, 4800), device_sends=True)
    assert measurement.details["sender_tx_bytes"] == 5000
    assert measurement.details["receiver_rx_bytes"] == 5000


@pytest.mark.parametrize("device_sends", [True, False])
def test_bytes_that_did_not_cross_the_usb_link_are_a_measurement_error(device_sends):
    # The counters moved, but less than the tool says arrived: the traffic went another way (loopback).
    link = UsbNetLink(device=_End("usb0", [(10, 10)]), host=_End("usb1", [(10, 10)]))  # type: ignore[arg-type]
    with pytest.raises(MeasurementError, match="did not cross the USB link") as caught:
        link.measure(_run(link, 4800), device_sends=device_sends)
    assert "usb0" in str(caught.value) and "usb1" in str(caught.value)
    assert caught.value.raw_output == "iperf3 output"
