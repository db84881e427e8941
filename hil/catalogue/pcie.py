"""PCIe between two boards, one the root complex (rc) and one the endpoint (ep): controller DMA, BAR
load/store and interrupt latency (seed 002 "Rockchip Developer Guide PCIe Performance" §4-§7).

Every rate is bounded by the declared link (gen × lanes, net of TLP overhead at its max payload size),
which the tests check against the trained link first (hil.lab.pcie.link).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hil.catalogue.ceilings import PcieBus
from hil.catalogue.model import Family, Setting, lower, rate

SEED = "seed 002"


def _bar_access_fits(values: Mapping[str, Any]) -> str | None:
    if values["pcie.bar_width"] not in (32, 64):
        return f"pcie.bar_width ({values['pcie.bar_width']}) must be 32 or 64 (bits per load/store)"
    return None


@dataclass(frozen=True)
class PcieSettings:
    ep_bdf: str
    dma_tool: str
    dma_side: str
    dma_total_mb: int
    bar: int
    bar_kib: int
    bar_width: int
    bar_loops: int
    irq_seconds: int


PCIE = Family(
    view=PcieSettings,
    name="pcie",
    title="PCIe root complex + endpoint",
    metrics=(
        *(
            rate(
                f"pcie.dma.{op}",
                f'{SEED} §4 "DMA Interface 吞吐率" (标准 EP 测试)',
                f"controller DMA {op}s {whose} memory across the link (pcie-dw-dmatest or pci-epf-test)",
                ceiling=PcieBus(),
            )
            for op, whose in (("write", "local"), ("read", "remote"))
        ),
        *(
            rate(
                f"pcie.bar.{op}",
                f'{SEED} §5 "Bar Interface 吞吐率"',
                f"root complex CPU {verb} the endpoint's BAR, mmap of sysfs resourceN (resource_mmap_test)",
                ceiling=PcieBus(),
                reads=op,
            )
            for op, verb in (("store", "stores into"), ("load", "loads from"))
        ),
        lower(
            "pcie.irq.elbi",
            f'{SEED} §6 "中断响应速率-ELBI"',
            "time per ELBI interrupt the endpoint takes, RC raising them back to back (kernel log)",
            unit="µs",
            reads="latency",
        ),
        lower(
            "pcie.irq.msi",
            f'{SEED} §7 "中断响应速率-MSI"',
            "time per MSI the root complex takes, EP raising them back to back (kernel log)",
            unit="µs",
            reads="latency",
        ),
    ),
    settings=(
        Setting("pcie.ep_bdf", str, "0000:01:00.0", "the endpoint's PCI address as the root complex sees it"),
        Setting(
            "pcie.dma_tool",
            str,
            "dw-dmatest",
            "which DMA test drives the transfers: Rockchip pcie-dw-dmatest or mainline pci-epf-test + pcitest",
            choices=("dw-dmatest", "epf-test"),
        ),
        Setting(
            "pcie.dma_side",
            str,
            "ep",
            "the role whose DMA engine runs pcie-dw-dmatest (seed 002: the endpoint)",
            choices=("ep", "rc"),
        ),
        Setting("pcie.dma_total_mb", int, 64, "MiB moved per DMA sample (loops = this / transfer size)", 1, 65536),
        Setting("pcie.bar", int, 2, "the BAR resource_mmap_test maps (seed 002: resource2)", 0, 5),
        Setting("pcie.bar_kib", int, 1024, "KiB of the BAR stored and loaded per pass (≤ the BAR)", 1, 65536),
        Setting("pcie.bar_width", int, 32, "bits per load/store (32 as in seed 002, or 64)", 32, 64),
        Setting("pcie.bar_loops", int, 4, "passes over the BAR per sample (one stores zeros: no read-back)", 2, 10000),
        Setting("pcie.irq_seconds", int, 3, "seconds of the counting side's log read per sample", 2, 60),
    ),
    checks=(_bar_access_fits,),
)

FAMILIES = (PCIE,)
