"""PCIe link facts before any PCIe metric: the speed and width a device trained to, from sysfs.

A link that trained below what boards.yaml declares (Gen3 x4 running as Gen2 x1 after a marginal
connector) would turn every DMA figure into a false regression, so it is an error naming both. A link
trained above the declaration is one too: every rate is shown as a fraction of the declared link's
ceiling, which would then be the wrong one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hil.errors import LabError
from hil.lab import shell
from hil.lab.role import Role

# sysfs *_link_speed: "8.0 GT/s PCIe" (5.x+), "8 GT/s" or "8.0 GT/s" (older), "Unknown" (link down).
_SPEED = re.compile(r"^(?P<gts>[0-9]+(?:\.[0-9]+)?) GT/s(?: PCIe)?$", re.ASCII)
GEN_BY_GTS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}
ATTRIBUTES = ("current_link_speed", "current_link_width", "max_link_speed", "max_link_width")


class LinkBelowSpec(LabError):
    """The link trained to another generation or width than boards.yaml declares."""


@dataclass(frozen=True)
class TrainedLink:
    gen: int
    lanes: int
    max_gen: int
    max_lanes: int

    def describe(self) -> str:
        return f"Gen{self.gen} x{self.lanes} (device capable of Gen{self.max_gen} x{self.max_lanes})"


def _gen(text: str, where: str) -> int:
    match = _SPEED.match(text.strip())
    gen = GEN_BY_GTS.get(float(match["gts"])) if match else None
    if gen is None:
        raise LabError(f"{where}: link speed {text.strip()!r} is not a PCIe rate (link down?)")
    return gen


def _width(text: str, where: str) -> int:
    value = text.strip()
    if not re.fullmatch(r"[0-9]{1,2}", value, re.ASCII) or int(value) == 0:
        raise LabError(f"{where}: link width {value!r} is not a lane count (link down?)")
    return int(value)


def read_link(role: Role, bdf: str, *, sysfs: str = "/sys/bus/pci/devices") -> TrainedLink:
    """The trained and the maximum link of the PCI device `bdf` as `role` sees it."""
    if not re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", bdf):
        raise ValueError(f"PCI address {bdf!r} must look like 0000:01:00.0")
    device = f"{sysfs}/{bdf}"
    values = {}
    for name in ATTRIBUTES:
        exitcode, output = role.run_status(shell.cmd("cat", f"{device}/{name}"), timeout=30)
        if exitcode != 0:
            raise LabError(f"{role.label}: cannot read {device}/{name}: {output.strip()}")
        values[name] = output
    where = f"{role.label} {bdf}"
    return TrainedLink(
        gen=_gen(values["current_link_speed"], where),
        lanes=_width(values["current_link_width"], where),
        max_gen=_gen(values["max_link_speed"], where),
        max_lanes=_width(values["max_link_width"], where),
    )


def require_link(role: Role, bdf: str, declared: Any, *, sysfs: str = "/sys/bus/pci/devices") -> TrainedLink:
    """The trained link, or LinkBelowSpec when it differs from boards.yaml's `link` (gen, lanes)."""
    trained = read_link(role, bdf, sysfs=sysfs)
    wanted = f"Gen{declared.gen} x{declared.lanes}"
    if (trained.gen, trained.lanes) == (declared.gen, declared.lanes):
        return trained
    below = trained.gen < declared.gen or trained.lanes < declared.lanes
    what = "trained below" if below else "trained to another link than"
    raise LinkBelowSpec(
        f"{role.label} {bdf}: PCIe link {what} boards.yaml declares: trained {trained.describe()}, "
        f"declared {wanted}" + ("" if below else "; correct the declaration, the ceilings follow from it")
    )
