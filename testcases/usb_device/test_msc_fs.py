"""USB mass-storage gadget throughput with a filesystem on the host side (seed 001, "Throughput with the
filesystem involved", Linux host): the host formats the gadget's disk, mounts it, writes a file with dd
and then `sync` (the sync's time added: a synchronous write; dd's time alone is the asynchronous figure of the
same runs, usb.msc.fs.write.async), and reads it back. Before each read the disk is re-attached as seed 001
does between its write and its read: unmounted, the gadget off the bus until the host has dropped it and on
again, remounted (GadgetOnLink.reattach_disk), so none of the file is in the host's page cache; caches are
dropped too. Each re-attach's seconds are kept with its sample (reattach_s).
After the timed runs, a file of random data written, synced and read back from the disk must be intact.

The quick matrix runs 4K, the seeds' smallest block (test_msc.py's quick matrix covers 64K-1M raw).
"""

import functools

import pytest

import hil
from hil.catalogue.usb_device import MscSettings
from hil.diagnose.storage import FarEnd, StorageDiagnosis
from hil.lab.storage import local
from hil.lab.storage.filesystem import mounted
from hil.lab.usb_gadget.gadget import MassStorage
from hil.lab.usb_gadget.on_link import gadget_on
from hil.measure import dd, ddfile, integrity

pytestmark = [
    pytest.mark.hil_metrics("usb.msc.fs.read", "usb.msc.fs.write", "usb.msc.fs.write.async"),
    pytest.mark.hil_tools(host=["dd", "date"]),
]


# 102400: seed 001's own block (dd bs=102400 count=1024), 100 KiB, not a power of two.
@hil.matrix("bs", quick=["4K"], full=["4K", "64K", "102400", "1M"], ids="bs={}")
@pytest.mark.parametrize("direction", ["read", "write"])
def test_msc_fs_throughput(pair, perf, direction, bs):
    msc = pair.settings(MscSettings)
    transfer_mb, fs, backing_mb = msc.fs_transfer_mb, msc.fs, msc.backing_mb
    with (
        gadget_on(pair, MassStorage(size_mb=backing_mb, backing_file=msc.backing_file)) as gadget,
        mounted(pair.host, gadget.block_device(), fs) as mountpoint,
    ):
        far = FarEnd(pair.device, msc.backing_dir)
        diagnosis = StorageDiagnosis(pair.host, gadget.block_device(), direction, bs, transfer_mb, mountpoint, far)
        path = f"{mountpoint}/hil-msc.bin"
        if direction == "read":
            ddfile.write(pair.host, path, block_size="1M", total_mb=transfer_mb)  # the file to read back
            transfer = functools.partial(ddfile.read_reattached, reattach=lambda: gadget.reattach_disk(mountpoint, fs))
        else:
            transfer = ddfile.write_pair  # seed 001's synchronous and asynchronous pair
        perf.check(
            [f"usb.msc.fs.{direction}"] + (["usb.msc.fs.write.async"] if direction == "write" else []),
            bs=bs,
            fs=fs,
            facts={
                "tool": dd.version(pair.host),
                "filesystem": fs,
                "msc_backing": local.where(pair.device, msc.backing_dir),
                **({"page_cache": ddfile.REATTACHED} if direction == "read" else {}),
            },
            sample=lambda: transfer(pair.host, path, block_size=bs, total_mb=transfer_mb),
            verify=lambda: integrity.file_round_trip(
                pair.host, mountpoint, size_mb=integrity.verify_mb(transfer_mb), block_size=bs
            ),
            diagnosis=diagnosis,  # the file system against the raw disk and the board's storage
        )
