"""USB host suite: the USB disks the disk tests measure, found and checked before any figure."""

from __future__ import annotations

import pytest

from hil.catalogue.usb_host import DiskSettings
from hil.errors import LabError
from hil.lab.pair import BoardPair
from hil.lab.storage import queue
from hil.lab.usb_host import usbhost


@pytest.fixture
def disk(pair):
    """The /dev node of the pair's USB disk (disk.serial), once it enumerated at the pair's link speed; the
    driver that took it (uas or usb-storage, i.e. Bulk-Only) is recorded and must be disk.protocol's."""
    serial = pair.settings(DiskSettings).serial
    if not serial:
        raise LabError(f"{pair.name}: set disk.serial (the USB serial number of the disk on the board)")
    return _checked_disk(pair, serial, suffix="")


@pytest.fixture
def disks(pair):
    """Every USB disk of the pair (disk.serial and disk.together's) by serial, each found and checked as `disk`;
    a pair that names one disk skips."""
    serials = pair.settings(DiskSettings).serials
    if len(serials) < 2:
        pytest.skip(f"{pair.name}: one USB disk (disk.together names no other): nothing to measure at once")
    return {serial: _checked_disk(pair, serial, suffix=f" {serial}") for serial in serials}


def _checked_disk(pair: BoardPair, serial: str, *, suffix: str) -> str:
    host = pair.host
    device = usbhost.wait_for_device(host, serial)
    protocol = usbhost.storage_protocol(host, device)
    pair.note(
        **{
            f"usb_disk{suffix}": f"{device.vendor_id}:{device.product_id} serial {serial} at {device.sysfs}",
            f"usb_disk_protocol{suffix}": protocol,
        }
    )
    pair.record_link(f"{device.speed_mbps:g} Mb/s ({device.speed})")
    usbhost.require_speed(device, pair.link.speed, f"{pair.name} ({host.label}) disk {serial}")
    wanted = pair.settings(DiskSettings).protocol
    if wanted != "any" and protocol != wanted:
        raise LabError(f"{pair.name}: disk {serial} runs {protocol}, the pair specifies {wanted} (disk.protocol)")
    node = usbhost.wait_for_block_device(host, device)
    pair.note(**{f"block_queue{suffix}": queue.read(host, node).describe()})
    return node
