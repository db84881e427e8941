"""Where a PCIe DMA figure stands against its bus (seed 002 §2.2, §4): one more run of the check's transfer
against the TLP efficiency bound of the link as it trained and the payload size the endpoint runs, as read
back (hil.lab.pcie), then each role's operating point (seed 002 §3 fixes the CPU and DDR clocks):

    DMA read 210 MB/s is 47% of the Gen2 x1 TLP bound at MPS 256 (450.7 MB/s): far below the link
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hil.diagnose import steps
from hil.lab.board.role import Role
from hil.lab.pcie import link as pcie_link
from hil.lab.pcie import payload
from hil.verdict.ceilings import pcie_ceiling
from hil.verdict.measurement import Measurement
from hil.verdict.units import convert

AT_THE_BOUND = 0.9  # a DMA figure this close to the TLP bound is the link's; below FAR_BELOW, the engine's
FAR_BELOW = 0.5
ABOVE = 1.05  # more than the bound lets through: not this link's figure


@dataclass(frozen=True)
class PcieDiagnosis:
    """`transfer`: one more run of the check's DMA (a Measurement of its throughput); `rc` reads the endpoint
    `bdf`'s trained link and payload size; `roles`: whose operating point to read."""

    what: str  # "DMA read", "DMA write"
    rc: Role
    bdf: str
    transfer: Callable[[], Measurement]
    roles: Sequence[Role]

    def __call__(self, deadline: float, lines: list[str]) -> None:
        throughput = self.transfer().values["throughput"]
        mb_s = convert(throughput.value, throughput.unit, "MB/s")
        trained = pcie_link.read_trained(self.rc, self.bdf)
        found = payload.read_payload(self.rc, f"/sys/bus/pci/devices/{self.bdf}")
        lines += tlp_lines(self.what, mb_s, trained, found.mps if found else None)
        lines += steps.operating_points(self.roles)


def tlp_lines(what: str, mb_s: float, trained: pcie_link.TrainedLink, mps: int | None) -> list[str]:
    """The figure as a share of the TLP bound of the trained link at the read-back MPS, and what that says."""
    link = f"Gen{trained.gen} x{trained.lanes}"
    found = []
    if trained.gen < trained.max_gen or trained.lanes < trained.max_lanes:
        found.append(
            f"the link trained at {link}, below the Gen{trained.max_gen} x{trained.max_lanes} its device takes"
        )
    if mps is None:
        return [*found, f"{what} {mb_s:.0f} MB/s; the endpoint has no PCIe capability: no MPS to bound it with"]
    bound = pcie_ceiling(trained.gen, trained.lanes, payload=mps).value
    share = mb_s / bound
    line = f"{what} {mb_s:.0f} MB/s is {share:.0%} of the {link} TLP bound at MPS {mps} ({bound:.1f} MB/s)"
    if share > ABOVE:
        line += ": above it: the transfer did not take this link at this MPS (its timing, or another link)"
    elif share >= AT_THE_BOUND:
        line += ": at the link's bound (more needs a faster or wider link, or a larger MPS)"
    elif share < FAR_BELOW:
        line += ": far below the link: the DMA engine, its transfer size or the memory's clocks bound it"
    return [line, *found]
