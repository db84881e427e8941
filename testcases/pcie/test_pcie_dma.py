"""Controller DMA throughput between root complex and endpoint (seed 002 §4, "标准 EP 测试"): per transfer size
and direction, from the kernel log of Rockchip's pcie-dw-dmatest or mainline pci-epf-test (`pcie.dma_tool`).
A FAIL or REGRESSION is diagnosed: the figure against the TLP bound of the link as trained and the MPS read
back (hil.diagnose.pcie)."""

import pytest

import hil
from hil.catalogue.pcie import PcieSettings
from hil.diagnose.pcie import PcieDiagnosis
from hil.measure import pcie_dmatest

pytestmark = pytest.mark.hil_metrics("pcie.dma.read", "pcie.dma.write")

SIZES = {"64B": 64, "256B": 256, "4K": 4096, "64K": 65536, "1M": 1 << 20, "4M": 4 << 20}


@hil.matrix("size", quick=["4K", "1M"], full=list(SIZES), ids="size={}")
@pytest.mark.parametrize("direction", pcie_dmatest.DIRECTIONS)
def test_pcie_dma_throughput(pcie_pair, perf, direction, size):
    nbytes = SIZES[size]
    settings = pcie_pair.settings(PcieSettings)
    tool = settings.dma_tool
    rc, ep = pcie_pair.role("rc"), pcie_pair.role("ep")
    if tool == "dw-dmatest":
        side = settings.dma_side
        loops = max(1, settings.dma_total_mb * (1 << 20) // nbytes)

        def sample():
            return pcie_dmatest.run_dw_dmatest(
                pcie_pair.role(side), size=nbytes, loops=loops, direction=direction, is_rc=side == "rc"
            )

    else:
        side = "ep"

        def sample():
            return pcie_dmatest.run_epf_test(rc, ep, size=nbytes, direction=direction)

    perf.check(
        f"pcie.dma.{direction}",
        size=size,
        facts={"dma_tool": tool},
        cpu_load_on=side,
        sample=sample,
        diagnosis=PcieDiagnosis(f"DMA {direction}", rc, settings.ep_bdf, sample, (rc, ep)),
    )
