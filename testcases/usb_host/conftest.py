"""USB host suite: the USB disk both disk tests measure, found and checked before any figure."""

from __future__ import annotations

import pytest

from hil.catalogue.usb_host import DiskSettings
from hil.errors import LabError
from hil.lab.storage import queue
from hil.lab.usb_host import usbhost


@pytest.fixture
def disk(pair):
    """The /dev node of the pair's USB disk (disk.serial), once it enumerated at the pair's link speed; the
    driver that took it (uas or usb-storage, i.e. Bulk-Only) is recorded and must be disk.protocol's."""
    host = pair.host
    serial = pair.settings(DiskSettings).serial
    if not serial:
        raise LabError(f"{pair.name}: set disk.serial (the USB serial number of the disk on the board)")
    device = usbhost.wait_for_device(host, serial)
    protocol = usbhost.storage_protocol(host, device)
    pair.note(usb_disk=f"{device.vendor_id}:{device.product_id} serial {serial} at {device.sysfs}")
    pair.note(usb_disk_protocol=protocol)
    pair.record_link(f"{device.speed_mbps:g} Mb/s ({device.speed})")
    usbhost.require_speed(device, pair.link.speed, f"{pair.name} ({host.label}) disk {serial}")
    wanted = pair.settings(DiskSettings).protocol
    if wanted != "any" and protocol != wanted:
        raise LabError(f"{pair.name}: disk {serial} runs {protocol}, the pair specifies {wanted} (disk.protocol)")
    node = usbhost.wait_for_block_device(host, device)
    pair.note(block_queue=queue.read(host, node).describe())
    return node
