"""What a USB program on the lab PC sees of a gadget: pyusb finds it by VID:PID and serial, reads its speed.

Only pyusb and the standard library here, so the same code also runs inside the virtual board.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import usb
import usb.backend.libusb1
import usb.core
import usb.util

from hil.errors import LabError

# libusb's speed codes (libusb_get_device_speed) -> hil's speed names (hil.lab.usb_host.usbhost.SPEED_MBPS) and the
# signalling rate in Mb/s. pyusb 1.3.1 names codes 0-4 only: libusb 1.0.22 added SUPER_PLUS (5), 1.0.27
# SUPER_PLUS_X2 (6). Code 0 (SPEED_UNKNOWN) has no entry: such a link cannot be confirmed.
LIBUSB_SPEEDS: dict[int, tuple[str, float]] = {
    usb.util.SPEED_LOW: ("low", 1.5),
    usb.util.SPEED_FULL: ("full", 12.0),
    usb.util.SPEED_HIGH: ("high", 480.0),
    usb.util.SPEED_SUPER: ("super", 5000.0),
    5: ("super-plus", 10000.0),
    6: ("super-plus-x2", 20000.0),
}
SPEED_MBPS = dict(LIBUSB_SPEEDS.values())
SYSFS_DEVICES = Path("/sys/bus/usb/devices")
POLL_S = 0.2


@dataclass(frozen=True)
class Seen:
    """One USB device as libusb reports it."""

    vendor_id: int
    product_id: int
    speed_code: int  # libusb's, see LIBUSB_SPEEDS
    bus: int
    ports: tuple[int, ...]  # port numbers from the root hub down; empty for a root hub

    @classmethod
    def of(cls, device: usb.core.Device) -> Seen:
        """From pyusb's Device (its `speed` and `port_numbers` are None where libusb cannot tell)."""
        return cls(
            vendor_id=device.idVendor,
            product_id=device.idProduct,
            speed_code=device.speed or usb.util.SPEED_UNKNOWN,
            bus=device.bus,
            ports=tuple(device.port_numbers or ()),
        )

    @property
    def vid_pid(self) -> str:
        return f"{self.vendor_id:04x}:{self.product_id:04x}"

    @property
    def bus_path(self) -> str:
        """The kernel's name for the device, as in /sys/bus/usb/devices: "3-1.2", or "usb3" for a root hub."""
        if not self.ports:
            return f"usb{self.bus}"
        return f"{self.bus}-" + ".".join(str(port) for port in self.ports)

    @property
    def speed(self) -> str | None:
        """hil's name for the negotiated speed; None when libusb does not know it."""
        return LIBUSB_SPEEDS.get(self.speed_code, (None, None))[0]

    @property
    def speed_mbps(self) -> float | None:
        return LIBUSB_SPEEDS.get(self.speed_code, (None, None))[1]

    def describe_speed(self) -> str:
        if self.speed is None:
            return f"unknown speed (libusb speed code {self.speed_code})"
        return f"{self.speed} speed ({self.speed_mbps:g} Mb/s)"

    def describe(self) -> str:
        return f"{self.vid_pid} at {self.describe_speed()} on {self.bus_path}"

    def facts(self) -> dict[str, str]:
        return {
            "pyusb.device": self.vid_pid,
            "pyusb.speed": self.describe_speed(),
            "pyusb.bus_path": self.bus_path,
        }


def serial_of(seen: Seen, sysfs: Path = SYSFS_DEVICES) -> str | None:
    """The serial number the kernel read at enumeration, from sysfs under libusb's bus path (reading the string
    descriptor through libusb needs write access to the usbfs node, which a lab PC's pytest usually lacks)."""
    try:
        return (sysfs / seen.bus_path / "serial").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


class _LibusbVersion(ctypes.Structure):
    _fields_ = (  # struct libusb_version
        ("major", ctypes.c_uint16),
        ("minor", ctypes.c_uint16),
        ("micro", ctypes.c_uint16),
        ("nano", ctypes.c_uint16),
        ("rc", ctypes.c_char_p),
        ("describe", ctypes.c_char_p),
    )


class Libusb:
    """libusb 1.0 as pyusb loads it; a PC without it is a LabError that says what to install.

    Each listing opens a libusb context of its own: pyusb's shared one follows udevd's events only, so without
    udevd (a container, the virtual board) a gadget bound after the first listing would never appear.
    """

    def __init__(self, find_library: Callable[[str], str | None] | None = None) -> None:
        shared = usb.backend.libusb1.get_backend(find_library=find_library)
        if shared is None:
            raise LabError(
                "pyusb found no usable libusb-1.0 on this PC: install the Debian package libusb-1.0-0 "
                "(scripts/setup.sh does)"
            )
        self.library = shared.lib

    def version(self) -> str:
        """'pyusb 1.3.1, libusb 1.0.26': the versions that did the check, for the result's facts."""
        get_version = self.library.libusb_get_version
        get_version.argtypes = []
        get_version.restype = ctypes.POINTER(_LibusbVersion)
        version = get_version().contents
        return f"pyusb {usb.__version__}, libusb {version.major}.{version.minor}.{version.micro}"

    def devices(self) -> list[Seen]:
        """Every device on the buses now (root hubs included), from a fresh libusb context."""
        context = usb.backend.libusb1._LibUSB(self.library)
        return [Seen.of(device) for device in usb.core.find(find_all=True, backend=context)]

    def confirm(
        self,
        *,
        vendor_id: int,
        product_id: int,
        serial: str,
        speed: str,
        timeout_s: float,
        where: str,
        sysfs: Path = SYSFS_DEVICES,
        poll_s: float = POLL_S,
    ) -> Seen:
        """Wait until libusb lists the device with this VID:PID and serial; LabError if it is not listed in time or
        at a speed below `speed` (or one libusb does not know)."""
        if speed not in SPEED_MBPS:
            raise ValueError(f"unknown USB speed {speed!r} (known: {', '.join(SPEED_MBPS)})")
        wanted = f"{vendor_id:04x}:{product_id:04x} (serial {serial}) at {speed} speed ({SPEED_MBPS[speed]:g} Mb/s)"

        def is_it(seen: Seen) -> bool:
            return (seen.vendor_id, seen.product_id) == (vendor_id, product_id) and serial_of(seen, sysfs) == serial

        deadline = time.monotonic() + timeout_s
        while True:
            listed = self.devices()
            match = next(filter(is_it, listed), None)
            if match is not None:
                break
            if time.monotonic() >= deadline:
                others = "; ".join(seen.describe() for seen in listed) or "none"
                raise LabError(
                    f"{where}: pyusb found no USB device {wanted} within {timeout_s:g} s; libusb lists: {others}"
                )
            time.sleep(poll_s)
        if match.speed_mbps is None or match.speed_mbps < SPEED_MBPS[speed]:
            raise LabError(f"{where}: pyusb sees {match.describe()} (serial {serial}), expected {wanted}")
        return match
