"""A USB disk on the board, the board being the USB host, as in the Rockchip USB guide (seed 000, "USB Disk
传输速率分析", 方法 2): dd reads and writes at 4K, 64K, 128K and 512K, caches dropped before each run,
conv=fsync on writes. The raw device with O_DIRECT keeps the page cache out whatever the board's RAM.
After the timed runs, random data written to the disk must read back intact.

Before any figure (the `disk` fixture, conftest.py): the disk enumerated at the pair's link speed, and the
driver that took it (uas or usb-storage, i.e. Bulk-Only) is recorded and must be the one the pair specifies.
"""

import pytest

import hil
from hil.catalogue.usb_host import DiskSettings
from hil.measure import dd, integrity

pytestmark = [pytest.mark.hil_metrics("usb.disk.read", "usb.disk.write"), pytest.mark.hil_tools(host=["dd"])]


# Writes first: the reads then read data the disk really holds.
@hil.matrix("bs", quick=["512K"], full=["4K", "64K", "128K", "512K"], ids="bs={}")
@pytest.mark.parametrize("direction", ["write", "read"])
def test_usb_disk_throughput(pair, perf, disk, direction, bs):
    transfer = dd.read if direction == "read" else dd.write
    transfer_mb = pair.settings(DiskSettings).transfer_mb
    perf.check(
        f"usb.disk.{direction}",
        bs=bs,
        cpu_load_on="host",
        facts={"tool": dd.version(pair.host), "block_device": disk},
        sample=lambda: transfer(pair.host, disk, block_size=bs, total_mb=transfer_mb),
        verify=lambda: integrity.block_device(pair.host, disk, size_mb=integrity.verify_mb(transfer_mb), block_size=bs),
    )
