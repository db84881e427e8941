"""The two ends of a HID gadget: /dev/hidgN on the device role, /dev/hidrawN on the host role, and the
interrupt endpoints the host enumerated (their interval and packet size decide the ceiling).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hil.errors import LabError, Unavailable
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.usb_gadget.gadget import Hid
from hil.lab.usb_host.usbhost import UsbDevice

if TYPE_CHECKING:
    from hil.lab.usb_gadget.on_link import GadgetOnLink

POLL_S = 0.2


@dataclass(frozen=True)
class Endpoint:
    name: str  # ep_81
    direction: str  # in / out
    max_packet: int  # bytes per transaction (wMaxPacketSize bits 10..0)
    interval: str  # as the kernel prints it: "1ms", "125us"


@dataclass(frozen=True)
class HidEnds:
    device: Role
    hidg: str  # /dev/hidg0
    host: Role
    hidraw: str  # /dev/hidraw0
    endpoints: tuple[Endpoint, ...]

    @property
    def interval(self) -> str:
        """The interrupt endpoints' interval; both directions must agree (f_hid gives them one)."""
        intervals = {ep.interval for ep in self.endpoints}
        if len(intervals) != 1:
            raise LabError(f"HID endpoints disagree on their interval: {self.endpoints}")
        return intervals.pop()

    def describe(self) -> str:
        return ", ".join(f"{ep.name} {ep.direction} {ep.interval} {ep.max_packet} B" for ep in self.endpoints)


def _poll(role: Role, script: str, what: str, timeout_s: float) -> str:
    """Run `script` (exits 0 once it printed what it looks for) every POLL_S on the role, bounded."""
    code, output = role.run_status(shell.until(script, timeout_s, interval_s=POLL_S), timeout=timeout_s + 30)
    if code != 0:
        raise LabError(f"{role.label}: {what} did not appear within {timeout_s:g} s:\n{output}")
    return output.strip()


def ends(
    device: Role, gadget_path: str, function: Hid, host: Role, usb: UsbDevice, *, timeout_s: float = 20
) -> HidEnds:
    """Find both device nodes (waiting for udev-less /dev to have them) and the enumerated endpoints."""
    dev_attr = shlex.quote(f"{gadget_path}/functions/{function.dirname}/dev")
    hidg = _poll(
        device,
        f'n=$(sed -n "s/^DEVNAME=//p" "/sys/dev/char/$(cat {dev_attr})/uevent") && [ -c "/dev/$n" ] && echo "/dev/$n"',
        f"the gadget's hidg node ({function.dirname})",
        timeout_s,
    )
    sysfs = shlex.quote(usb.sysfs)
    hidraw = _poll(
        host,
        f"for n in {sysfs}/*:1.0/*/hidraw/hidraw*; do "
        'node="/dev/${n##*/}"; [ -c "$node" ] && echo "$node" && exit 0; done; false',
        f"the host's hidraw node for {usb.sysfs}",
        timeout_s,
    )
    listing = host.run(
        f'for e in {sysfs}/*:1.0/ep_*; do echo "${{e##*/}}" $(cat "$e/direction" "$e/type" "$e/bInterval" '
        '"$e/wMaxPacketSize" "$e/interval"); done',
        timeout=30,
    )
    endpoints = []
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) != 6 or parts[2] != "Interrupt":
            raise LabError(f"{host.label}: unexpected endpoint of the HID interface: {line!r}")
        name, direction, _, _, max_packet, interval = parts  # the type is checked; `interval` says bInterval
        endpoints.append(Endpoint(name, direction, int(max_packet, 16) & 0x7FF, interval))
    if sorted(ep.direction for ep in endpoints) != ["in", "out"]:
        raise LabError(f"{host.label}: the HID interface should have one IN and one OUT endpoint: {listing!r}")
    return HidEnds(device, hidg, host, hidraw, tuple(endpoints))


def ends_of(on_link: GadgetOnLink, function: Hid, *, interval: str | None = None, timeout_s: float = 20) -> HidEnds:
    """`ends` of a gadget a pair runs; with `interval`, endpoints at another one are Unavailable (f_hid has no
    knob for it)."""
    pair = on_link.pair
    found = ends(pair.device, on_link.gadget.path, function, pair.host, on_link.usb_device, timeout_s=timeout_s)
    if interval is not None and found.interval != interval:
        raise Unavailable(f"{pair.name}: the gadget's interrupt endpoints run at {found.interval} ({found.describe()})")
    return found
