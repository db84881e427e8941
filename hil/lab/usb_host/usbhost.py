"""The USB host side of a link: find the enumerated device in sysfs, read its negotiated speed, its nodes.

Polling loops run on the host itself in one command: one console round trip costs more than a sysfs read.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.console import without_kernel_messages
from hil.lab.board.role import Role

# sysfs `speed` values (Mb/s) for each USB speed name used in boards.yaml.
SPEED_MBPS = {"low": 1.5, "full": 12.0, "high": 480.0, "super": 5000.0, "super-plus": 10000.0}
# What the kernel writes to `speed` (usb_speed_string of drivers/usb/core/sysfs.c): "unknown" is no speed.
_SYSFS_SPEED = re.compile(r"1\.5|12|480|5000|10000|20000", re.ASCII)
_USB_ID = re.compile(r"[0-9a-f]{4}", re.ASCII)


def speed_name(mbps: float) -> str:
    return next((name for name, value in SPEED_MBPS.items() if value == mbps), f"{mbps:g} Mb/s")


class NotEnumerated(LabError):
    """No USB device with the serial number enumerated on the host in time."""


@dataclass(frozen=True)
class UsbDevice:
    sysfs: str  # /sys/bus/usb/devices/1-1
    speed_mbps: float
    vendor_id: str
    product_id: str
    serial: str

    @property
    def speed(self) -> str:
        return speed_name(self.speed_mbps)


def _poll(host: Role, setup: str, attempt: str, timeout_s: float) -> tuple[int, str]:
    """Repeat `attempt` (exits 0 once it found what it looks for) every 0.2 s for `timeout_s`, on the host."""
    return host.run_status(f"{setup}; {shell.until(f'{attempt}; false', timeout_s)}", timeout=timeout_s + 30)


def wait_for_device(host: Role, serial: str, *, timeout_s: float = 20.0) -> UsbDevice:
    """Wait until a device with this serial number has enumerated on the host; fail with what is there."""
    exitcode, output = _poll(
        host,
        f"s={shlex.quote(serial)}",
        "for d in /sys/bus/usb/devices/*; do "
        '[ "$(cat "$d/serial" 2>/dev/null)" = "$s" ] && '
        '{ echo "$d"; cat "$d/speed" "$d/idVendor" "$d/idProduct"; exit 0; }; '
        "done",
        timeout_s,
    )
    lines = output.split()
    if exitcode != 0 or len(lines) < 4:
        present = host.run(
            'for d in /sys/bus/usb/devices/*; do [ -f "$d/idVendor" ] && '
            'echo "$(basename "$d") $(cat "$d/idVendor"):$(cat "$d/idProduct") speed=$(cat "$d/speed") '
            'serial=$(cat "$d/serial" 2>/dev/null)"; done; true',
            timeout=30,
        )
        raise NotEnumerated(
            f"{host.label}: USB device with serial {serial} did not enumerate within {timeout_s:.0f} s; "
            f"devices present:\n{present or '(none)'}"
        )
    return _device(without_kernel_messages(output), serial, host.label, output)


def _device(text: str, serial: str, where: str, raw: str) -> UsbDevice:
    """The four lines the lookup printed (path, speed, idVendor, idProduct), each checked for what it is."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    fields = lines[:4] if len(lines) == 4 else []
    valid = (
        len(fields) == 4
        and fields[0].startswith("/sys/bus/usb/devices/")
        and _SYSFS_SPEED.fullmatch(fields[1]) is not None
        and all(_USB_ID.fullmatch(field) for field in fields[2:])
    )
    if not valid:
        raise LabError(
            f"{where}: the USB device with serial {serial} enumerated, but its sysfs entry does not read as one "
            f"(path, speed, idVendor, idProduct): {raw.strip()[:300]!r}"
        )
    path, speed, vendor, product = fields
    return UsbDevice(sysfs=path, speed_mbps=float(speed), vendor_id=vendor, product_id=product, serial=serial)


def wait_until_gone(host: Role, serial: str, *, timeout_s: float = 20.0) -> None:
    """Wait until no device with this serial number is enumerated on the host (it was disconnected)."""
    exitcode, output = _poll(
        host,
        f"s={shlex.quote(serial)}",
        'gone=1; for d in /sys/bus/usb/devices/*; do [ "$(cat "$d/serial" 2>/dev/null)" = "$s" ] && gone=0; done; '
        '[ "$gone" = 1 ] && exit 0',
        timeout_s,
    )
    if exitcode != 0:
        raise LabError(
            f"{host.label}: the USB device with serial {serial} is still enumerated {timeout_s:.0f} s after the "
            f"board disconnected it{': ' + output.strip() if output.strip() else ''}"
        )


def require_speed(device: UsbDevice, expected: str, where: str) -> None:
    """A link that trained below the speed the pair is specified for is an error, not a slow pass."""
    if device.speed_mbps != SPEED_MBPS[expected]:
        raise LabError(
            f"{where}: link came up at {device.speed_mbps:g} Mb/s ({device.speed} speed), "
            f"expected {SPEED_MBPS[expected]:g} Mb/s ({expected} speed)"
        )


def wait_for_block_device(host: Role, device: UsbDevice, *, timeout_s: float = 20.0) -> str:
    """The /dev node of the disk behind an enumerated mass-storage device, once it has a medium."""
    exitcode, output = _poll(
        host,
        f"d={shlex.quote(device.sysfs)}",
        'for b in "$d"/*:*/host*/target*/*:*/block/*; do '
        '[ -e "$b" ] && [ "$(cat "$b/size")" -gt 0 ] && [ -b "/dev/$(basename "$b")" ] && '
        '{ basename "$b"; exit 0; }; '
        "done",
        timeout_s,
    )
    name = output.strip().splitlines()[-1] if output.strip() else ""
    if exitcode != 0 or not re.fullmatch(r"[a-z]+\d*", name):
        raise LabError(
            f"{host.label}: no block device with a medium appeared for {device.sysfs} within "
            f"{timeout_s:.0f} s (output: {output!r})"
        )
    return f"/dev/{name}"


# The interface driver says which protocol a USB disk speaks: uas, or usb-storage (Bulk-Only Transport,
# also what a UAS disk falls back to on a host or quirk that does not allow UAS).
STORAGE_DRIVERS = ("uas", "usb-storage")


def interface_drivers(host: Role, device: UsbDevice) -> list[str]:
    """The drivers bound to the device's interfaces (sysfs `driver` links), in interface order."""
    output = host.run(
        f"d={shlex.quote(device.sysfs)}; "
        'for i in "$d"/*:*; do [ -L "$i/driver" ] && basename "$(readlink "$i/driver")"; done; true',
        timeout=30,
    )
    return [line.strip() for line in output.splitlines() if line.strip()]


def storage_protocol(host: Role, device: UsbDevice, *, timeout_s: float = 20.0) -> str:
    """uas or usb-storage: the driver that took the disk, once one has (its module may still be loading)."""
    _poll(
        host,
        f"d={shlex.quote(device.sysfs)}",
        'for i in "$d"/*:*; do case "$(basename "$(readlink "$i/driver")")" in uas|usb-storage) exit 0;; esac; done',
        timeout_s,
    )
    drivers = interface_drivers(host, device)
    if found := next((driver for driver in drivers if driver in STORAGE_DRIVERS), None):
        return found
    raise LabError(
        f"{host.label}: {device.sysfs} (serial {device.serial}) was bound to no storage driver within "
        f"{timeout_s:.0f} s (interfaces: {', '.join(drivers) or 'none bound'})"
    )


def network_interface(host: Role, usb_sysfs: str, *, timeout_s: float = 20.0) -> str:
    """The network interface a driver (cdc_ether, r8152, ...) made for the USB device at `usb_sysfs`, once it has."""
    exitcode, output = _poll(
        host,
        f"d={shlex.quote(usb_sysfs)}",
        'for n in "$d"/*:*/net/*; do [ -e "$n" ] && { basename "$n"; exit 0; }; done',
        timeout_s,
    )
    name = output.strip().splitlines()[-1] if output.strip() else ""
    if exitcode != 0 or not name.replace("_", "").isalnum():
        drivers = host.run(f"ls -l {shlex.quote(usb_sysfs)}/*:*/driver 2>&1; true", timeout=30)
        raise LabError(
            f"{host.label}: no network interface appeared for {usb_sysfs} within {timeout_s:.0f} s "
            f"(interface drivers:\n{drivers})"
        )
    return name
