"""A USB disk on the board, the board being the USB host, as in the Rockchip USB guide (seed 000, "USB Disk
传输速率分析", 方法 2): dd reads and writes at 4K, 64K, 128K and 512K, caches dropped before each run,
conv=fsync on writes. The raw device with O_DIRECT keeps the page cache out whatever the board's RAM.

Before any figure: the disk enumerated at the pair's link speed, and the driver that took it (uas or
usb-storage, i.e. Bulk-Only) is recorded and must be the one the pair specifies.
"""

import pytest

import hil
from hil.errors import LabError
from hil.lab import usbhost
from hil.measure import dd

pytestmark = pytest.mark.hil_metrics("usb.disk.read", "usb.disk.write")


@pytest.fixture
def disk(pair):
    host = pair.host
    serial = pair.setting("disk.serial")
    if not serial:
        raise LabError(f"{pair.name}: set disk.serial (the USB serial number of the disk on the board)")
    device = usbhost.wait_for_device(host, serial)
    protocol = usbhost.storage_protocol(host, device)
    pair.facts["usb_disk"] = f"{device.vendor_id}:{device.product_id} serial {serial} at {device.sysfs}"
    pair.facts["usb_disk_protocol"] = protocol
    pair.facts["link_speed"] = f"{device.speed_mbps:g} Mb/s ({device.speed})"
    usbhost.require_speed(device, pair.link.speed, f"{pair.name} ({host.label}) disk {serial}")
    wanted = pair.setting("disk.protocol")
    if wanted != "any" and protocol != wanted:
        raise LabError(f"{pair.name}: disk {serial} runs {protocol}, the pair specifies {wanted} (disk.protocol)")
    return usbhost.wait_for_block_device(host, device)


# Writes first: the reads then read data the disk really holds.
@hil.matrix("bs", quick=["512K"], full=["4K", "64K", "128K", "512K"], ids="bs={}")
@pytest.mark.parametrize("direction", ["write", "read"])
def test_usb_disk_throughput(pair, perf, disk, direction, bs):
    transfer = dd.read if direction == "read" else dd.write
    perf.check(
        f"usb.disk.{direction}",
        bs=bs,
        cpu_load_on="host",
        facts={"tool": dd.version(pair.host), "block_device": disk},
        sample=lambda: transfer(pair.host, disk, block_size=bs, total_mb=pair.setting("disk.transfer_mb")),
    )
