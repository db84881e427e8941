"""A USB disk on the board copied to and from with cp, as in the Rockchip USB guide (seed 000, "USB Disk
传输速率分析", 方法 1: `echo 3 > /proc/sys/vm/drop_caches; time cp ...`): the board formats the disk
(disk.fs), mounts it, and copies one large file of random data from its own directory (disk.cp_dir; RAM
on the virtual board) onto the disk (write) or back (read). Caches are dropped before each copy, and
each is timed on the board from cp's start to the end of the sync after it (seed 001's sync time).
Every copy must have its source's size, and the last of each case its content (hil.measure.cpfile).

Beside dd on the raw device (test_usb_disk.py) this is the seed's "actual" copy rate, filesystems and
cp's own block size included: when it falls short of dd's, the seed looks for the bottleneck there.
The disk and its protocol (UAS or Bulk-Only) are checked and recorded by the `disk` fixture (conftest.py).
"""

import pytest

from hil.catalogue.usb_host import DiskSettings
from hil.diagnose.storage import StorageDiagnosis
from hil.lab.storage.filesystem import mounted
from hil.lab.usb_host import pc_disk
from hil.measure import cpfile

pytestmark = [
    pytest.mark.hil_metrics("usb.disk.cp.read", "usb.disk.cp.write"),
    pytest.mark.hil_tools(host=["cp", "dd"]),
]
MOUNTPOINT = "/mnt/hil-usb-disk"


@pytest.mark.parametrize("direction", ["write", "read"])
def test_usb_disk_copy(pair, perf, disk, direction):
    settings = pair.settings(DiskSettings)
    fs = settings.fs
    with (
        mounted(pair.host, disk, fs, mountpoint=MOUNTPOINT) as disk_dir,
        cpfile.copies(
            pair.host,
            direction,
            disk_dir=disk_dir,
            board_dir=settings.cp_dir,
            size_mb=settings.cp_file_mb,
        ) as copies,
    ):
        perf.check(
            f"usb.disk.cp.{direction}",
            fs=fs,
            cpu_load_on="host",
            facts={**copies.facts, "filesystem": fs, "block_device": disk},
            sample=copies.sample,
            verify=copies.verify,
            # dd on the raw disk (read only: its file system is mounted), on the file system, and on the lab PC's
            diagnosis=StorageDiagnosis(
                pair.host,
                disk,
                direction,
                "1M",
                settings.cp_file_mb,
                mount=disk_dir,
                on_the_pc=(lambda: pc_disk.find(pair)) if "peer" in pair.roles else None,
            ),
        )
