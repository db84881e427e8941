"""The trained state of a PCIe link, from sysfs, before any PCIe metric is measured (issue 8, seed 002 §2).

A link that trained below what the pair is specified for (boards.yaml `link: {type: pcie, gen, lanes}`)
measures the wrong thing: a Gen3 x4 SSD that came up at Gen2 x1 would pass a loose band and hide the
fault. So it is an ERROR naming both, on real boards; on an emulated link the figures are recorded only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hil.errors import LabError
from hil.lab import shell
from hil.lab.role import Role

# GT/s per lane -> generation (seed 002 table 2-1).
GENERATION = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5}
ATTRIBUTES = ("current_link_speed", "current_link_width", "max_link_speed", "max_link_width")
_SPEED = re.compile(r"^(?P<gts>[0-9]+(?:\.[0-9]+)?) GT/s(?: PCIe)?$", re.ASCII)


@dataclass(frozen=True)
class PcieLinkState:
    """What sysfs says about one PCI device's link; None where it says nothing usable ("Unknown", absent)."""

    device: str  # sysfs path of the PCI device
    speed_gts: float | None
    width: int | None
    max_speed_gts: float | None
    max_width: int | None
    raw: dict[str, str]

    @property
    def gen(self) -> int | None:
        return GENERATION.get(self.speed_gts) if self.speed_gts is not None else None

    def describe(self) -> str:
        if self.speed_gts is None or self.width is None:
            shown = ", ".join(f"{k}={v!r}" for k, v in self.raw.items())
            return f"link state unknown at {self.device.rsplit('/', 1)[-1]} ({shown})"
        gen = f"Gen{self.gen} " if self.gen else ""
        capable = ""
        if self.max_speed_gts is not None and self.max_width is not None:
            capable = f"; capable of {self.max_speed_gts:g} GT/s x{self.max_width}"
        return f"{gen}x{self.width} ({self.speed_gts:g} GT/s{capable}) at {self.device.rsplit('/', 1)[-1]}"


def parse_link(device: str, attributes: dict[str, str]) -> PcieLinkState:
    """The link state from the sysfs attribute texts ("8.0 GT/s PCIe", "4", "Unknown", "")."""
    return PcieLinkState(
        device=device,
        speed_gts=_speed(attributes.get("current_link_speed", "")),
        width=_width(attributes.get("current_link_width", "")),
        max_speed_gts=_speed(attributes.get("max_link_speed", "")),
        max_width=_width(attributes.get("max_link_width", "")),
        raw=dict(attributes),
    )


def _speed(text: str) -> float | None:
    match = _SPEED.match(text.strip())
    return float(match["gts"]) if match else None


def _width(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and int(text) > 0 else None


def read_link(role: Role, device: str) -> PcieLinkState:
    """Read the link attributes of the PCI device at sysfs path `device` (one command)."""
    script = "; ".join(
        f"printf '%s=%s\\n' {name} \"$(cat {shell.cmd(f'{device}/{name}')} 2>/dev/null)\"" for name in ATTRIBUTES
    )
    output = role.run(script, timeout=30)
    attributes = {}
    for line in output.splitlines():
        name, sep, value = line.partition("=")
        if sep and name in ATTRIBUTES:
            attributes[name] = value.strip()
    return parse_link(device, attributes)


def require_link(state: PcieLinkState, gen: int, lanes: int, where: str) -> None:
    """A link below the specified generation or width is an error naming both (an unreadable one too)."""
    specified = f"Gen{gen} x{lanes}"
    if state.gen is None or state.width is None:
        raise LabError(f"{where}: PCIe link specified as {specified}, but sysfs gives {state.describe()}")
    if state.gen < gen or state.width < lanes:
        raise LabError(f"{where}: PCIe link trained at {state.describe()}, below the specified {specified}")
