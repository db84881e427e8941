"""USB mass-storage gadget, seed 001's raw-read check beside dd: `hdparm -t` on the host's view of the gadget's
disk, buffered sequential reads through the page cache's readahead (hil.measure.hdparm). The same LUN as the dd
cases (msc.backing_mb in the board's RAM or at msc.backing_dir); hdparm reads about 3 s of it, or all of it."""

import pytest

from hil.catalogue.usb_device import MscSettings
from hil.diagnose.storage import FarEnd, StorageDiagnosis
from hil.lab.storage import local
from hil.lab.usb_gadget.gadget import MassStorage
from hil.lab.usb_gadget.on_link import gadget_on
from hil.measure import hdparm

pytestmark = [pytest.mark.hil_metrics("usb.msc.hdparm.read"), pytest.mark.hil_tools(host=["hdparm"])]


def test_msc_hdparm_read(pair, perf):
    msc = pair.settings(MscSettings)
    with gadget_on(pair, MassStorage(size_mb=msc.backing_mb, backing_file=msc.backing_file)) as gadget:
        disk = gadget.block_device()
        perf.check(
            "usb.msc.hdparm.read",
            facts={"tool": hdparm.version(pair.host), "msc_backing": local.where(pair.device, msc.backing_dir)},
            sample=lambda: hdparm.read(pair.host, disk),
            # the layers beside it, read with dd at 1M (hdparm's readahead asks 2 MiB at a time)
            diagnosis=StorageDiagnosis(
                pair.host, disk, "read", "1M", msc.transfer_mb, far=FarEnd(pair.device, msc.backing_dir)
            ),
        )
