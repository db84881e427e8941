"""A test case of this lab's own, beside hil's stock suite: the same fixtures (`pair`, `perf`), the same
bands from boards.yaml, the same reports. This one reads the mass-storage gadget in 1 MiB blocks, 8 MB a
sample: another procedure than the stock case's (which reads msc.transfer_mb), so it gives its figure a key of
its own (`usb.msc.read[bs=1M,total=8M]`); under the stock case's key hil refuses it."""

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
        read = lambda: dd.read(pair.host, disk, block_size="1M", total_mb=8)  # noqa: E731
        perf.check("usb.msc.read", bs="1M", total="8M", sample=read)
