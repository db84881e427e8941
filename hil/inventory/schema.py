"""The schema of boards.yaml: board pairs, their roles and link, and what each metric must reach.

Validated with pydantic at start-up, before any board is touched. Every model forbids unknown keys, so a
typo (`max_vc`) is an error naming the key rather than a silently ignored setting.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from hil.verdict import units

PERCENT = re.compile(r"^\s*(?P<number>[0-9]*\.?[0-9]+)\s*%\s*$")


class Strict(BaseModel):
    # No inf/nan either: `max: .nan` would load and only fail when a test builds its band, after boot.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


def _percent(value: object) -> float:
    """'5%' or 5 -> 0.05. Used where a value is always relative (CV, minimum effect)."""
    if isinstance(value, str):
        match = PERCENT.match(value)
        if match is None:
            raise ValueError(f"{value!r} is not a percentage like '5%'")
        return float(match["number"]) / 100
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{value!r} is not a percentage like '5%' or a number of percent")
    return float(value) / 100


Percent = Annotated[float, Field(gt=0, le=1)]


class Tolerance(Strict):
    """nominal ± tolerance: '10%' is relative to the nominal, a plain number is in the metric's unit."""

    value: float = Field(gt=0)
    relative: bool


def _tolerance(value: object) -> Tolerance:
    if isinstance(value, Tolerance):
        return value
    if isinstance(value, str):
        match = PERCENT.match(value)
        if match is None:
            raise ValueError(f"{value!r} is neither a percentage ('10%') nor a number in the metric's unit")
        return Tolerance(value=float(match["number"]) / 100, relative=True)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{value!r} is neither a percentage ('10%') nor a number in the metric's unit")
    return Tolerance(value=float(value), relative=False)


class Sampling(Strict):
    """Sampling and stability settings; any level (defaults, metric, parameter set) may set any of them."""

    max_cv: Percent | None = None
    min_samples: int | None = Field(default=None, ge=2)
    max_samples: int | None = Field(default=None, ge=2)
    budget_s: float | None = Field(default=None, gt=0)
    warmup: int | None = Field(default=None, ge=0)
    min_effect: Percent | None = None

    @field_validator("max_cv", "min_effect", mode="before")
    @classmethod
    def _as_fraction(cls, value: object) -> object:
        return None if value is None else _percent(value)


class BandSettings(Sampling):
    """A band (min/max, or nominal ± tolerance) plus sampling overrides."""

    min: float | None = None
    max: float | None = None
    nominal: float | None = None
    tolerance: Tolerance | None = None

    @field_validator("tolerance", mode="before")
    @classmethod
    def _parse_tolerance(cls, value: object) -> object:
        return None if value is None else _tolerance(value)

    @model_validator(mode="after")
    def _one_band_form(self) -> BandSettings:
        if (self.nominal is None) != (self.tolerance is None):
            raise ValueError("nominal and tolerance go together")
        if self.nominal is not None and (self.min is not None or self.max is not None):
            raise ValueError("give either min/max or nominal/tolerance, not both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self

    @property
    def has_band(self) -> bool:
        return self.min is not None or self.max is not None or self.nominal is not None


def _valid_selector(selector: str) -> str:
    parse_selector(selector)
    return selector


# Checked as a dict key, so an error's location (and line) is the selector itself, not `params`.
Selector = Annotated[str, AfterValidator(_valid_selector)]


class MetricConfig(BandSettings):
    unit: str
    direction: Literal["higher", "lower"] = "higher"
    # How the band was obtained (a seed table, a calibration run): shown in reports next to the band.
    source: str = ""
    # Overrides per parameter set: "bs=64K" or "bs=64K,dir=read" -> settings for the cases matching it.
    params: dict[Selector, BandSettings] = Field(default_factory=dict)

    @field_validator("unit")
    @classmethod
    def _known_unit(cls, value: str) -> str:
        units.dimension(value)  # raises ValueError naming the known units
        return value

    @model_validator(mode="after")
    def _needs_band(self) -> MetricConfig:
        if not self.has_band:
            raise ValueError("a metric needs a band: min and/or max, or nominal with tolerance")
        return self


def parse_selector(selector: str) -> dict[str, str]:
    """'bs=64K,dir=read' -> {'bs': '64K', 'dir': 'read'}."""
    pairs = {}
    for part in selector.split(","):
        name, sep, value = part.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ValueError(f"parameter selector {selector!r} must look like 'name=value[,name=value]'")
        pairs[name.strip()] = value.strip()
    return pairs


class ModuleConfig(Strict):
    """A kernel module the link needs loaded with these parameters (the virtual lab's dummy_hcd)."""

    module: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    params: dict[str, str | int | bool] = Field(default_factory=dict)

    @field_validator("params")
    @classmethod
    def _param_names(cls, value: dict[str, object]) -> dict[str, object]:
        for name in value:
            if not re.fullmatch(r"[A-Za-z0-9_]+", name):
                raise ValueError(f"module parameter name {name!r} is not a plain identifier")
        return value


class UsbLink(Strict):
    type: Literal["usb"]
    speed: Literal["low", "full", "high", "super", "super-plus"]
    udc: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.:-]+$")  # the device role's UDC, for gadgets
    driver: ModuleConfig | None = None
    # dummy_hcd moves data by memcpy, not over a bus: it has no physical ceiling to check against.
    emulated: bool = False


class PcieLink(Strict):
    type: Literal["pcie"]
    gen: Literal[1, 2, 3, 4, 5]
    lanes: Literal[1, 2, 4, 8, 16]
    max_payload: Literal[128, 256, 512, 1024, 2048, 4096] = 256
    emulated: bool = False


Link = Annotated[UsbLink | PcieLink, Field(discriminator="type")]
RoleName = Literal["host", "device", "rc", "ep"]


class RoleConfig(Strict):
    target: str  # a target of the pair's labgrid environment


class PairConfig(Strict):
    description: str = ""
    env: str  # labgrid environment file, relative to boards.yaml
    vlab: bool = False  # its targets boot the virtual lab image, which hil builds first
    # `link` is validated before `roles` (field order, not YAML order), so a role mismatch is reported
    # at `roles` and its line rather than at the whole pair.
    link: Link
    roles: dict[RoleName, RoleConfig]
    settings: dict[str, str | int | float | bool] = Field(default_factory=dict)
    metrics: dict[str, MetricConfig] = Field(default_factory=dict)

    @field_validator("roles")
    @classmethod
    def _roles_fit_link(cls, value: dict[str, RoleConfig], info: ValidationInfo) -> dict[str, RoleConfig]:
        link = info.data.get("link")
        if link is None:  # the link itself is invalid: that error is reported instead
            return value
        wanted = {"usb": {"host", "device"}, "pcie": {"rc", "ep"}}[link.type]
        if set(value) != wanted:
            raise ValueError(f"a {link.type} pair needs roles {sorted(wanted)}, found {sorted(value)}")
        return value


class Defaults(Sampling):
    max_cv: Percent = 0.05
    min_samples: int = Field(default=5, ge=2)
    max_samples: int = Field(default=20, ge=2)
    budget_s: float = Field(default=300.0, gt=0)
    warmup: int = Field(default=1, ge=0)
    min_effect: Percent = 0.05


class Inventory(Strict):
    defaults: Defaults = Field(default_factory=Defaults)
    pairs: dict[str, PairConfig]

    @field_validator("pairs")
    @classmethod
    def _pair_names(cls, value: dict[str, PairConfig]) -> dict[str, PairConfig]:
        if not value:
            raise ValueError("no pairs defined")
        for name in value:
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
                raise ValueError(f"pair name {name!r} may hold only letters, digits, '_', '.', '-'")
        return value
