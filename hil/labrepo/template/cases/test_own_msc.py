"""A test case of this lab's own, beside hil's stock suite: the same fixtures (`pair`, `perf`), the same
bands from boards.yaml, the same reports. This one reads the mass-storage gadget in 1 MiB blocks."""

import pytest

from hil.catalogue.usb_device import MscSettings
from hil.lab.usb_gadget.gadget import MassStorage
from hil.lab.usb_gadget.on_link import gadget_on
from hil.measure import dd

pytestmark = pytest.mark.hil_metrics("usb.msc.read")


def test_own_msc_read(pair, perf):
    msc = pair.settings(MscSettings)
    with gadget_on(pair, MassStorage(size_mb=msc.backing_mb)) as gadget:
        disk = gadget.block_device()
        perf.check("usb.msc.read", bs="1M", sample=lambda: dd.read(pair.host, disk, block_size="1M", total_mb=8))
