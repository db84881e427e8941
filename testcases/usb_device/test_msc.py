"""USB mass-storage gadget throughput, as in the Rockchip USB guide (seed 000, "USB MSC 传输速率分析"):
the board exports a LUN over its UDC, the host reads and writes the raw disk with dd and O_DIRECT.

The LUN's backing file lives in RAM (tmpfs) so the board's storage does not limit the USB path, or where
msc.backing_dir puts it (the board's eMMC/SD: seed 000's /data, seed 001's SD card), recorded as
msc_backing. After the timed runs, random data written through the gadget must be in its backing file and
read back intact. A FAIL or REGRESSION is diagnosed: the raw disk with its requests and interrupts, beside a
file of the board's storage where the backing file lives (hil.diagnose.storage).
"""

import pytest

import hil
from hil.catalogue.usb_device import MscSettings
from hil.diagnose.storage import FarEnd, StorageDiagnosis
from hil.lab.storage import local
from hil.lab.usb_gadget.gadget import MassStorage
from hil.lab.usb_gadget.on_link import gadget_on
from hil.measure import dd, integrity

pytestmark = [pytest.mark.hil_metrics("usb.msc.read", "usb.msc.write"), pytest.mark.hil_tools(host=["dd"])]


@hil.matrix("bs", quick=["1M"], full=["4K", "64K", "128K", "512K", "1M"], ids="bs={}")
@pytest.mark.parametrize("direction", ["read", "write"])
def test_msc_throughput(pair, perf, direction, bs):
    msc = pair.settings(MscSettings)
    lun = MassStorage(size_mb=msc.backing_mb, backing_file=msc.backing_file)
    with gadget_on(pair, lun) as gadget:
        disk = gadget.block_device()
        transfer = dd.read if direction == "read" else dd.write
        perf.check(
            f"usb.msc.{direction}",
            bs=bs,
            facts={"tool": dd.version(pair.host), "msc_backing": local.where(pair.device, msc.backing_dir)},
            sample=lambda: transfer(pair.host, disk, block_size=bs, total_mb=msc.transfer_mb),
            verify=lambda: integrity.block_device(
                pair.host,
                disk,
                size_mb=integrity.verify_mb(msc.transfer_mb),
                block_size=bs,
                far=(pair.device, lun.backing_file),
            ),
            diagnosis=StorageDiagnosis(
                pair.host,
                disk,
                direction,
                bs,
                msc.transfer_mb,
                far=FarEnd(pair.device, msc.backing_dir),
                raw_writable=True,
            ),
        )
