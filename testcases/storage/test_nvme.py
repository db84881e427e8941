"""NVMe throughput on the board's PCIe root complex, as seed 002 §8.1.1 emulates CrystalDiskMark with fio:
SEQ1M Q32T1 and RND4K Q32T1, read and write, direct I/O, libaio (psync without it), on the raw namespace
(`target=raw`) and, in the full matrix, on a file of a file system made on it beside (seed 002: `target=ext4`,
`target=f2fs` mounted nobarrier; a board without the mkfs or the kernel's file system skips saying which).
The file system and the mount options the kernel applied are in the facts.

Before any figure: the namespace is there and its PCIe link trained at what boards.yaml specifies. After
the timed runs, random data written to the namespace with O_DIRECT (to a file of the mount on a file system)
must read back intact.
"""

import pytest

import hil
from hil.catalogue.storage import NvmeSettings
from hil.diagnose.storage import StorageDiagnosis
from hil.lab.pcie import link as pcie_link
from hil.lab.pcie import payload
from hil.lab.storage import nvme, queue
from hil.measure import fio, integrity
from hil.measure.fio import FioJob

CASES = {
    "seq1m_q32t1": {"read": FioJob("read", "1M", iodepth=32), "write": FioJob("write", "1M", iodepth=32)},
    "rnd4k_q32t1": {"read": FioJob("randread", "4K", iodepth=32), "write": FioJob("randwrite", "4K", iodepth=32)},
}


def metrics(case, direction):
    """The rate for every case; RND4K also gates its IOPS and p99 completion latency."""
    names = [f"nvme.{case}.{direction}"]
    if case == "rnd4k_q32t1":
        names += [f"nvme.{case}.{direction}_iops", f"nvme.{case}.{direction}_p99"]
    return names


pytestmark = [
    pytest.mark.hil_metrics(*(name for case in CASES for d in ("read", "write") for name in metrics(case, d))),
    pytest.mark.hil_tools(rc=["fio"]),
]


@pytest.fixture
def drive(pair):
    """The namespace, with its drive and trained link recorded (a link below the pair's spec is an ERROR)."""
    rc = pair.role("rc")
    settings = pair.settings(NvmeSettings)
    namespace = nvme.wait_for_namespace(rc, settings.device)
    nvme.require_span(namespace, settings.size_mb)
    link = pcie_link.read_link(rc, namespace.pci_device)
    pair.note(nvme_drive=namespace.describe(), block_queue=queue.read(rc, namespace.node).describe())
    pair.record_link(link.describe() + (" (emulated: not checked)" if pair.link.emulated else ""))
    if not pair.link.emulated:
        pcie_link.require_link(link, pair.link.gen, pair.link.lanes, f"{pair.name} ({rc.label}) {namespace.node}")
    # The payload size after the link: a link trained below its declaration is the first thing to say.
    pair.note(pcie_payload=payload.checked(rc, namespace.pci_device, pair.link, f"{pair.name} {namespace.node}"))
    return namespace


# Writes first: the reads then read data the drive really holds (on a file system, the file fio laid out).
@hil.matrix("target", quick=["raw"], full=list(nvme.TARGETS), ids="target={}")
@pytest.mark.parametrize("direction", ["write", "read"])
@pytest.mark.parametrize("case", list(CASES))
def test_nvme_crystaldiskmark(pair, perf, drive, case, direction, target):
    rc = pair.role("rc")
    engine = fio.engine(rc)
    job = CASES[case][direction]
    settings = pair.settings(NvmeSettings)
    verify_mb = integrity.verify_mb(settings.size_mb)
    with nvme.fio_target(rc, drive.node, target) as on:
        perf.check(
            metrics(case, direction),
            target=target,
            cpu_load_on="rc",
            facts={"tool": fio.version(rc), "fio_engine": fio.describe_engine(engine, job), **on.facts},
            sample=lambda: fio.run(
                rc, on.filename, job, engine=engine, size_mb=settings.size_mb, runtime_s=settings.runtime_s
            ),
            verify=lambda: (
                integrity.block_device(rc, on.filename, size_mb=verify_mb, block_size=job.bs)
                if on.directory is None
                else integrity.file_round_trip(rc, on.directory, size_mb=verify_mb, block_size=job.bs)
            ),
            # dd through the namespace's layers at the job's block size (a write only where fio writes it raw)
            diagnosis=StorageDiagnosis(
                rc,
                drive.node,
                direction,
                job.bs,
                settings.size_mb,
                mount=on.directory,
                raw_writable=on.directory is None,
            ),
        )
