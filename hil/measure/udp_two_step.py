"""The seeds' UDP procedures, for every network family.

Seed 000 §2.2: offer the link's rate first, then measure at the rate that first run achieved (a sender far
above the link's rate only measures its own drops). Seed 004: raise the offered rate step by step until the
loss passes its band; the knee is the highest rate whose loss stayed inside it (`knee`, one sweep per sample).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure import iperf3, netpath
from hil.verdict import ceilings
from hil.verdict.measurement import Measurement, Quantity


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


def sweep_rates(step_mbps: float, top_mbps: float) -> list[float]:
    """Seed 004's offered rates: one step, two steps, ... up to `top_mbps` (at least the first step)."""
    if not step_mbps > 0:
        raise ValueError(f"the sweep's step must be > 0 Mbit/s, got {step_mbps}")
    return [step_mbps * n for n in range(1, max(1, int(top_mbps / step_mbps + 1e-9)) + 1)]


def knee(udp: Callable[[float], Measurement], rates: Sequence[float], loss_max: float) -> Measurement:
    """One sweep: each offered rate in turn until a run loses more than `loss_max` (%); its `knee` is the highest
    rate before that (0 when the first already did), the runs' offered rate and loss in its details."""
    found, steps, raw, seconds = 0.0, [], [], 0.0
    for rate in rates:
        run = udp(rate)
        loss = run.values["loss"].value
        steps.append(f"{rate:g} Mbit/s {loss:.2f}%")
        raw.append(run.raw)
        seconds += run.duration_s or 0.0
        if loss > loss_max:
            break
        found = rate
    return Measurement(
        {"knee": Quantity(found, "Mbit/s")},
        raw="\n".join(raw),
        duration_s=seconds,
        details={"offered_and_lost": steps, "loss_max_percent": loss_max},
    )


def receive_buffers(role: Role) -> dict[str, str]:
    """The socket receive buffer a UDP socket gets by default and the most one may ask for (bytes)."""
    names = ("rmem_default", "rmem_max")
    words = role.run(shell.cmd("cat", *(f"/proc/sys/net/core/{name}" for name in names)), timeout=30).split()
    return dict(zip(names, words, strict=False))
