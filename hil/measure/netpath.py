"""The byte-counter proof of every network family: a measurement counts only if its traffic crossed the path.

    sample=lambda: netpath.measure(link.path(device_sends=True), lambda: iperf3.tcp(...))

Each counted interface's tx or rx bytes (hil.lab.network.path.NetPath) must move by at least the bytes the
tool says were received: on the virtual lab both ends share a kernel, and a run that took loopback would
otherwise pass. What moved and the recorded interface's counters are kept with the run.
"""

from __future__ import annotations

from collections.abc import Callable

from hil.lab.network.path import NetEnd, NetPath
from hil.measure import netdev
from hil.verdict.errors import MeasurementError
from hil.verdict.measurement import Measurement


def _read(end: NetEnd, path: NetPath) -> dict[str, int]:
    return netdev.read(end.role, end.ifname, netdev.COUNTERS if end is path.recorded else netdev.BYTES, wrap=end.wrap)


def measure(path: NetPath, run: Callable[[], Measurement]) -> Measurement:
    """Run one measurement and prove it crossed `path` (MeasurementError naming each short interface)."""
    ends = path.ends()
    before = [_read(end, path) for end in ends]
    measurement = run()
    after = [_read(end, path) for end in ends]
    received = measurement.bytes_received
    if received is None:
        raise MeasurementError("the measurement says nothing about the bytes it received", measurement.raw)
    moved = [netdev.moved(b, a) for b, a in zip(before, after, strict=True)]
    if path.recorded is not None:
        index = path.index(path.recorded)
        measurement.observed.interface = netdev.record(
            path.recorded.ifname, path.recorded.role, before[index], after[index]
        )
    short = []
    for counted in path.counted:
        counter = f"{counted.direction}_bytes"
        bytes_moved = moved[path.index(counted.end)][counter]
        measurement.observed.bytes_moved[counted.direction] = bytes_moved
        if bytes_moved < received:
            short.append(f"{counted.end.ifname} on {counted.end.role.label} {counter} moved {bytes_moved} bytes")
    if short:
        raise MeasurementError(
            f"traffic did not cross {path.name}: {received} bytes received, but " + "; ".join(short),
            measurement.raw,
        )
    return measurement


def counters_moved(measurement: Measurement) -> str:
    """The recorded interface's error and drop counters over one measured run, as one line."""
    counted = netdev.summary([measurement])
    return counted[0] if counted else "interface counters not read"
