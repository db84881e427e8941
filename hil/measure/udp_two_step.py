"""Seed 000 §2.2's UDP procedure, for every network family: offer the link's rate first, then measure at the
rate that first run achieved (a sender far above the link's rate only measures its own drops).

    first = udp_two_step.first_run(lambda rate: udp(rate), udp_two_step.start_rate_mbps(pair.link.speed))
    perf.check(UDP_METRICS, facts={"udp_first_run": first.describe()}, sample=lambda: udp(first.measured_mbps))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hil.measure import iperf3, netpath
from hil.verdict import ceilings
from hil.verdict.measurement import Measurement


def start_rate_mbps(usb_speed: str, ethernet_mbps: float | None = None) -> float:
    """The rate the first run offers: the link's theoretical rate as a network rate, the USB bulk bound at
    its speed, or the negotiated Ethernet rate below it (a USB Ethernet adapter)."""
    return ceilings.usb_ethernet_ceiling(usb_speed, ethernet_mbps).value


@dataclass(frozen=True)
class FirstRun:
    offered_mbps: float
    measurement: Measurement

    @property
    def measured_mbps(self) -> float:
        """What the counted runs offer."""
        return iperf3.mbps(self.measurement)

    def describe(self) -> str:
        """The first run as a fact of the result (offered, received, lost; the interface's counters if read)."""
        loss = self.measurement.values["loss"].value
        text = f"{self.offered_mbps:.1f} Mbit/s offered, {self.measured_mbps:.1f} Mbit/s received, {loss:.2f}% lost"
        if self.measurement.observed.interface is not None:
            text += f"; {netpath.counters_moved(self.measurement)}"
        return text


def first_run(udp: Callable[[float], Measurement], offered_mbps: float) -> FirstRun:
    """Run the first UDP measurement at `offered_mbps` (not a counted sample: it finds the rate)."""
    return FirstRun(offered_mbps, udp(offered_mbps))
