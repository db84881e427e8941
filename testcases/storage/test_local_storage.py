"""The board's own storage (seed 000 "USB Disk 传输速率分析" step 4, the RK3399's eMMC): dd writes a file at 4K,
64K, 128K and 512K blocks (the sync after it counted) and reads it back, caches dropped before each run.
The filesystem, its device, the device's block queue and hdparm's timings (where the board has hdparm) are
stored with every result. After the timed runs, a file of random data written and read back must be intact.
"""

import pytest

import hil
from hil.catalogue.storage import LocalSettings
from hil.diagnose.storage import StorageDiagnosis
from hil.lab.storage import local
from hil.measure import dd, ddfile, integrity

pytestmark = pytest.mark.hil_metrics("storage.local.write", "storage.local.read")


@hil.matrix("bs", quick=["512K"], full=["4K", "64K", "128K", "512K"], ids="bs={}")
@pytest.mark.parametrize("direction", ["write", "read"])
def test_local_storage_throughput(pair, perf, direction, bs):
    settings = pair.settings(LocalSettings)
    board = pair.role(settings.role)
    with local.prepared(board, settings) as storage:
        if direction == "read":
            ddfile.write(board, storage.file, block_size="1M", total_mb=settings.file_mb)  # the file to read back
        transfer = ddfile.read if direction == "read" else ddfile.write
        perf.check(
            f"storage.local.{direction}",
            bs=bs,
            facts={"tool": dd.version(board), **storage.facts},
            sample=lambda: transfer(board, storage.file, block_size=bs, total_mb=settings.file_mb),
            verify=lambda: integrity.file_round_trip(
                board, storage.directory, size_mb=integrity.verify_mb(settings.file_mb), block_size=bs
            ),
            # its device read raw (the board's own file system lives on it: never written) and its file system
            diagnosis=StorageDiagnosis(board, storage.device, direction, bs, settings.file_mb, mount=storage.directory),
        )
