"""The trained state of a PCIe link, from sysfs, before any PCIe metric is measured (issue 8, seed 002 §2).

A link that trained below boards.yaml's `link` (gen, lanes) is an ERROR naming both on real boards: a Gen3 x4
SSD at Gen2 x1 would pass a loose band. `require_declared` (RC/EP pairs) also refuses a link trained above
it: every rate is shown against the declared link's ceiling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.role import Role

# GT/s per lane -> generation (seed 002 table 2-1).
GENERATION = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}
PCI_ADDRESS = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")
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
    pairs = (line.partition("=") for line in output.splitlines())
    return parse_link(device, {name: value.strip() for name, sep, value in pairs if sep and name in ATTRIBUTES})


def require_link(state: PcieLinkState, gen: int, lanes: int, where: str) -> None:
    """A link below the specified generation or width is an error naming both (an unreadable one too)."""
    specified = f"Gen{gen} x{lanes}"
    if state.gen is None or state.width is None:
        raise LabError(f"{where}: PCIe link specified as {specified}, but sysfs gives {state.describe()}")
    if state.gen < gen or state.width < lanes:
        raise LabError(f"{where}: PCIe link trained at {state.describe()}, below the specified {specified}")


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


def read_trained(role: Role, bdf: str, *, sysfs: str = "/sys/bus/pci/devices") -> TrainedLink:
    """The trained and the maximum link of the PCI device `bdf`; LabError when sysfs gives no usable state."""
    if not PCI_ADDRESS.fullmatch(bdf):
        raise ValueError(f"PCI address {bdf!r} must look like 0000:01:00.0")
    state = read_link(role, f"{sysfs}/{bdf}")
    where = f"{role.label} {bdf}"
    for name, value in (("current_link_speed", state.gen), ("current_link_width", state.width),
                        ("max_link_speed", GENERATION.get(state.max_speed_gts or 0.0)),
                        ("max_link_width", state.max_width)):  # fmt: skip
        if value is None:
            raise LabError(f"{where}: {name} {state.raw.get(name, '')!r} is not a PCIe link state (link down?)")
    assert state.gen is not None and state.width is not None and state.max_width is not None
    return TrainedLink(state.gen, state.width, GENERATION[state.max_speed_gts or 0.0], state.max_width)


def require_declared(role: Role, bdf: str, declared: Any, *, sysfs: str = "/sys/bus/pci/devices") -> TrainedLink:
    """The trained link, or LinkBelowSpec when it differs from boards.yaml's `link` (gen, lanes)."""
    trained = read_trained(role, bdf, sysfs=sysfs)
    wanted = f"Gen{declared.gen} x{declared.lanes}"
    if (trained.gen, trained.lanes) == (declared.gen, declared.lanes):
        return trained
    below = trained.gen < declared.gen or trained.lanes < declared.lanes
    what = "trained below" if below else "trained to another link than"
    raise LinkBelowSpec(
        f"{role.label} {bdf}: PCIe link {what} boards.yaml declares: trained {trained.describe()}, "
        f"declared {wanted}" + ("" if below else "; correct the declaration, the ceilings follow from it")
    )
