"""BAR load/store throughput (seed 002 §5): the root complex's CPU stores into and loads from the endpoint's BAR
through sysfs `resourceN`, with hil's resource_mmap_test; one run gives both metrics. On the virtual lab the BAR
is QEMU's ivshmem-plain shared memory (vlab-bar): a real mmap of a real PCI BAR, at emulated speed. Both of the
kernel's mappings of the BAR are measured, as seed 002's sysfs listing offers them: `resourceN` (device memory)
and `resourceN_wc` (write-combining, for a prefetchable BAR: a BAR without it skips saying so)."""

import pytest

import hil
from hil.catalogue.pcie import PcieSettings
from hil.measure import pcie_bar

pytestmark = [
    pytest.mark.hil_metrics("pcie.bar.store", "pcie.bar.load"),
    pytest.mark.hil_tools(rc=["resource_mmap_test"]),
]


@hil.matrix("mapping", quick=list(pcie_bar.MAPPINGS), full=list(pcie_bar.MAPPINGS), ids="mapping={}")
def test_pcie_bar_throughput(bar_pair, perf, mapping):
    rc = bar_pair.role("rc")
    settings = bar_pair.settings(PcieSettings)
    width = settings.bar_width
    perf.check(
        ["pcie.bar.store", "pcie.bar.load"],
        mapping=mapping,
        facts={"bar": pcie_bar.resource_file(rc, settings.ep_bdf, settings.bar, mapping), "access_bits": width},
        cpu_load_on="rc",
        sample=lambda: pcie_bar.run(
            rc,
            settings.ep_bdf,
            settings.bar,
            size=settings.bar_kib * 1024,
            width=width,
            loops=settings.bar_loops,
            mapping=mapping,
        ),
    )
