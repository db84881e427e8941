"""A USB disk on the board, the board being the USB host, as in the Rockchip USB guide (seed 000, "USB Disk
传输速率分析", 方法 2): dd reads and writes at 4K, 64K, 128K and 512K, caches dropped before each run,
conv=fsync on writes. The raw device with O_DIRECT keeps the page cache out whatever the board's RAM.
After the timed runs, random data written to the disk must read back intact.

Before any figure (the `disk` fixture, conftest.py): the disk enumerated at the pair's link speed, and the
driver that took it (uas or usb-storage, i.e. Bulk-Only) is recorded and must be the one the pair specifies.

Several disks on one host (disk.together; the seed's note: test several USB3 disks): the same dd on every
disk at once, each disk's rate gated (disk=<serial>) and the host's sum beside them.

The same disk on the lab PC (the seed's note: test the same USB3 disk on a PC for comparison, so a slow disk is
told from a slow board): the pair's peer role runs the same dd on the disk moved to it, or on an identical one
(disk.pc_serial); a PC without it skips the case naming what it has (hil.lab.usb_host.pc_disk).
"""

import pytest

import hil
from hil.catalogue.usb_host import DiskSettings
from hil.diagnose.storage import StorageDiagnosis
from hil.lab.usb_host import pc_disk
from hil.measure import dd, dd_together, integrity

pytestmark = pytest.mark.hil_tools(host=["dd"])


# Writes first: the reads then read data the disk really holds.
@pytest.mark.hil_metrics("usb.disk.read", "usb.disk.write")
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
        diagnosis=StorageDiagnosis(
            pair.host,
            disk,
            direction,
            bs,
            transfer_mb,
            raw_writable=True,
            on_the_pc=(lambda: pc_disk.find(pair)) if "peer" in pair.roles else None,
        ),
    )


@pytest.mark.hil_metrics("usb.disk.together.read", "usb.disk.together.write")
@hil.matrix("bs", quick=["512K"], full=["4K", "64K", "128K", "512K"], ids="bs={}")
@pytest.mark.parametrize("direction", ["write", "read"])
def test_usb_disks_together(pair, perf, disks, direction, bs):
    transfer_mb = pair.settings(DiskSettings).transfer_mb
    each = [(f"usb.disk.together.{direction}", {"disk": serial}) for serial in disks]
    perf.check(
        [*each, f"usb.disk.together.total.{direction}"],
        bs=bs,
        cpu_load_on="host",
        facts={"tool": dd.version(pair.host), "block_devices": " ".join(f"{s}={n}" for s, n in disks.items())},
        sample=lambda: dd_together.run(pair.host, disks, direction, block_size=bs, total_mb=transfer_mb),
        verify=lambda: "; ".join(
            integrity.block_device(pair.host, node, size_mb=integrity.verify_mb(transfer_mb), block_size=bs)
            for node in disks.values()
        ),
    )


@pytest.mark.hil_metrics("usb.disk.pc.read", "usb.disk.pc.write")
@pytest.mark.hil_tools(peer=["dd", "lsblk"])
@hil.matrix("bs", quick=["512K"], full=["4K", "64K", "128K", "512K"], ids="bs={}")
@pytest.mark.parametrize("direction", ["write", "read"])
def test_usb_disk_on_the_lab_pc(pair, perf, direction, bs):
    disk = pc_disk.find(pair)
    peer, node = disk.role, disk.node
    transfer = dd.read if direction == "read" else dd.write
    transfer_mb = pair.settings(DiskSettings).transfer_mb
    perf.check(
        f"usb.disk.pc.{direction}",
        bs=bs,
        cpu_load_on=None,  # a PC is no board held at an operating point: its governor moves its clock
        facts={"tool": dd.version(peer), "block_device": node, **disk.facts},
        sample=lambda: transfer(peer, node, block_size=bs, total_mb=transfer_mb),
        verify=lambda: integrity.block_device(peer, node, size_mb=integrity.verify_mb(transfer_mb), block_size=bs),
    )
