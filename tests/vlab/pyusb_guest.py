"""Run inside the virtual board by tests/vlab/test_pyusb_vlab.py: hil's pyusb check (hil.lab.usb_host.pyusb_enumeration)
against the board's own USB devices, with the board's libusb. Prints "started", then one JSON object.

    python3.11 pyusb_guest.py list
    python3.11 pyusb_guest.py confirm VID PID SERIAL SPEED TIMEOUT_S
    python3.11 pyusb_guest.py shared-context SECONDS    # pyusb's process-wide context, listed twice
"""

from __future__ import annotations

import json
import sys
import time

import usb.backend.libusb1
import usb.core

from hil.errors import LabError
from hil.lab.usb_host.pyusb_enumeration import Libusb, Seen, serial_of

# The board has no ldconfig cache for ctypes.util.find_library to read: name the library for the loader.
LIBUSB = "libusb-1.0.so.0"


def _seen(seen: Seen) -> dict:
    return {
        "vid_pid": seen.vid_pid,
        "speed_code": seen.speed_code,
        "speed": seen.speed,
        "bus_path": seen.bus_path,
        "serial": serial_of(seen),
    }


def main(argv: list[str]) -> dict:
    libusb = Libusb(find_library=lambda _name: LIBUSB)
    print("started", flush=True)
    command = argv[0]
    if command == "list":
        return {"version": libusb.version(), "devices": [_seen(seen) for seen in libusb.devices()]}
    if command == "confirm":
        vid, pid, serial, speed, timeout_s = argv[1:]
        started = time.monotonic()
        try:
            seen = libusb.confirm(
                vendor_id=int(vid, 16),
                product_id=int(pid, 16),
                serial=serial,
                speed=speed,
                timeout_s=float(timeout_s),
                where="vboard",
            )
        except LabError as exc:
            return {"error": str(exc), "seconds": time.monotonic() - started}
        return {"seen": _seen(seen), "facts": seen.facts(), "seconds": time.monotonic() - started}
    if command == "shared-context":
        shared = usb.backend.libusb1.get_backend(find_library=lambda _name: LIBUSB)
        first = [Seen.of(device).vid_pid for device in usb.core.find(find_all=True, backend=shared)]
        time.sleep(float(argv[1]))
        later = [Seen.of(device).vid_pid for device in usb.core.find(find_all=True, backend=shared)]
        fresh = [seen.vid_pid for seen in libusb.devices()]
        return {"first": first, "later": later, "fresh": fresh}
    raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])), flush=True)
