"""The schema of boards.yaml: board pairs, their roles and link, their settings and each metric's band.

Validated with pydantic at start-up, before any board is touched. Every model forbids unknown keys, so a
typo (`max_vc`) is an error naming the key rather than a silently ignored setting. What a metric *is*
(unit, direction, which ceiling applies) comes from the catalogue (hil.catalogue), passed in as the
loader's second pass (hil.inventory.against_catalogue): boards.yaml only says what each metric must
reach on each pair, and names the catalogue does not know (`usb.msc.raed`, `msc.transfr_mb`) are errors.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

from hil.inventory.tuning import TuningConfig
from hil.verdict import ceilings, units

PERCENT = re.compile(r"^\s*(?P<number>[0-9]*\.?[0-9]+)\s*%\s*$", re.ASCII)
QUANTITY = re.compile(r"^\s*(?P<number>[0-9]*\.?[0-9]+)\s*(?P<unit>\S+)\s*$", re.ASCII)


class Strict(BaseModel):
    # No inf/nan either: `max: .nan` would load and only fail when a test builds its band, after boot.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


# A number is written as a number: YAML's '3' (a string) or `true` is refused, not read as 3 or 1.
Int = StrictInt
Number = StrictFloat


def _bare_number(value: object, expected: str, alternative: str, instead: str) -> float:
    """A number written without its unit. One in (0, 1) is refused: is 0.05 meant as 5% or as 0.05 (%, MB/s...)?"""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{value!r} is {expected}")
    if 0 < value < 1:
        instead = instead.format(value)  # a template: `value` is known to be a number only here
        raise ValueError(f"{value!r} is ambiguous: a fraction or {alternative}? write '{value * 100:g}%' or {instead}")
    return float(value)


def _percent(value: object) -> float:
    """'5%' or 5 -> 0.05."""
    if isinstance(value, str):
        match = PERCENT.match(value)
        if match is None:
            raise ValueError(f"{value!r} is not a percentage like '5%'")
        return float(match["number"]) / 100
    return (
        _bare_number(value, "not a percentage like '5%' or a number of percent", "a number of percent", "'{:g}%'") / 100
    )


Percent = Annotated[float, Field(gt=0, le=1)]


class Tolerance(Strict):
    """nominal ± tolerance: relative ('10%') or absolute, in `unit` (None: the metric's band unit)."""

    value: Number = Field(gt=0)
    relative: StrictBool
    unit: str | None = None


def _tolerance(value: object) -> Tolerance:
    if isinstance(value, Tolerance):
        return value
    if isinstance(value, str):
        match = PERCENT.match(value)
        if match is not None:
            return Tolerance(value=float(match["number"]) / 100, relative=True)
        match = QUANTITY.match(value)
        if match is not None:
            units.quantity(match["unit"])  # names the known units
            return Tolerance(value=float(match["number"]), relative=False, unit=match["unit"])
    expected = "neither a percentage ('10%') nor a quantity with its unit ('5 MB/s')"
    return Tolerance(value=_bare_number(value, expected, "an absolute value", "give its unit"), relative=False)


class Sampling(Strict):
    """Sampling and stability settings; any level (defaults, metric, parameter set) may set any of them."""

    # The largest coefficient of variation a stable figure may show (5% or 0.05); above it: UNSTABLE.
    max_cv: Percent | None = None
    # Samples taken before the adaptive stop may decide (at least 2).
    min_samples: Int | None = Field(default=None, ge=2)
    # Samples after which sampling stops whatever the statistics say.
    max_samples: Int | None = Field(default=None, ge=2)
    # Seconds of sampling per metric after which it stops with what it has.
    budget_s: Number | None = Field(default=None, gt=0)
    # Runs taken and thrown away first (caches, clocks and links settle).
    warmup: Int | None = Field(default=None, ge=0)
    # The smallest change against the baseline that counts as a regression (10% or 0.1).
    min_effect: Percent | None = None
    # The least run-to-run spread (relative SD of run medians) the metric shows between clean boots of one build
    # on this pair, as calibrated: a regression must stand out of it even when the few reference runs at hand
    # happen to agree more closely (hil.verdict.baseline). Default 1%.
    run_spread: Percent | None = None
    # The lab PC's CPU use outside hil (hil.measure.pcload) above which a figure is not the board's alone:
    # its verdict is then UNSTABLE with that reason, never a plain PASS or FAIL. Unset: recorded only.
    pc_load_max: Percent | None = None

    @field_validator("max_cv", "min_effect", "run_spread", "pc_load_max", mode="before")
    @classmethod
    def _as_fraction(cls, value: object) -> object:
        return None if value is None else _percent(value)

    @field_validator("max_cv", mode="after")
    @classmethod
    def _max_cv_gates(cls, value: float | None) -> float | None:
        # A spread as large as the median passes any sampling: such a gate stops gating without a word.
        if value is not None and value >= 1:
            raise ValueError(
                f"max_cv {value * 100:g}% gates no spread: calibrate it on a quiet machine (a figure whose spread "
                "says nothing, like a loss or a jitter, is not checked for it by the catalogue)"
            )
        return value


class BandSettings(Sampling):
    """A band (min/max, or nominal ± tolerance) plus sampling overrides."""

    # The band's lower edge (in `unit`, or the metric's canonical unit); a rate below it FAILs.
    min: float | None = None
    # The band's upper edge; a latency or loss above it FAILs (a rate's: the page cache answered).
    max: float | None = None
    # A nominal figure with `tolerance` (a camera's 30 fps ± 10%): the band nominal ± tolerance.
    nominal: float | None = None
    # "10%" (relative) or "2 ms" (in a unit of the metric's quantity).
    tolerance: Tolerance | None = None

    @field_validator("min", "max", "nominal", mode="before")
    @classmethod
    def _a_number(cls, value: object) -> object:
        # YAML's `true` and '10' would pass as 1.0 and 10.0: a band edge is written as a number, nothing else.
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ValueError(f"a band edge is a number, not {value!r} ({type(value).__name__})")
        return value

    @field_validator("tolerance", mode="before")
    @classmethod
    def _parse_tolerance(cls, value: object) -> object:
        return None if value is None else _tolerance(value)

    @model_validator(mode="after")
    def _one_band_form(self) -> BandSettings:
        if written_null := sorted(name for name in self.model_fields_set if getattr(self, name) is None):
            # In a `params` override a null edge would silently keep the metric's (an override only adds).
            raise ValueError(
                f"{', '.join(written_null)}: null sets nothing; leave the key out (a params override keeps the "
                "metric's band and settings for every key it does not give)"
            )
        if (self.nominal is None) != (self.tolerance is None):
            raise ValueError("nominal and tolerance go together")
        if self.nominal is not None and (self.min is not None or self.max is not None):
            raise ValueError("give either min/max or nominal/tolerance, not both")
        if self.min is not None and self.max is not None and self.min >= self.max:
            equal = f"min and max are both {self.min}: a band of zero width passes nothing"
            raise ValueError(equal if self.min == self.max else f"min {self.min} is above max {self.max}")
        if self.nominal == 0 and self.tolerance is not None and self.tolerance.relative:
            raise ValueError("nominal 0 with a relative tolerance is a band of zero width: give min/max")
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
    """What one catalogue metric must reach on a pair. Its unit and direction are the catalogue's."""

    # The unit the band is written in; any unit of the metric's quantity (MiB/s for a MB/s metric, µs for
    # ms). Converted into the metric's own unit when the spec is built.
    unit: str | None = None
    # Recorded, not gated: a figure worth keeping in the results before a band for it is known.
    informative: StrictBool = False
    # How the band was obtained (a seed table, a calibration run): shown in reports next to the band.
    source: str = ""
    # Overrides per parameter set: "bs=64K" or "bs=64K,dir=read" -> settings for the cases matching it.
    params: dict[Selector, BandSettings] = Field(default_factory=dict)
    # Refused with the reason: the catalogue defines it (see _no_direction).
    direction: Any = None

    @field_validator("unit")
    @classmethod
    def _known_unit(cls, value: str | None) -> str | None:
        if value is not None:
            units.quantity(value)  # raises ValueError naming the known units
        return value

    @field_validator("direction")
    @classmethod
    def _no_direction(cls, value: object) -> None:
        if value is not None:
            raise ValueError("a metric's direction is the catalogue's (hil/catalogue), not a pair's: remove it")
        return None

    @model_validator(mode="after")
    def _needs_band(self) -> MetricConfig:
        if not self.has_band and not self.informative:
            raise ValueError("a metric needs a band: min and/or max, or nominal with tolerance (or informative: true)")
        if self.informative and (self.has_band or self.params):
            raise ValueError("an informative metric is recorded, not gated: it takes no band")
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


# Parameters of the kernel modules a link may load, by module: a value is typed, never free text, because
# `modprobe m 'a=1 b=2'` sets two parameters (the kernel splits the option string at spaces).
MODULE_PARAMETERS: dict[str, dict[str, type]] = {
    "dummy_hcd": {"is_super_speed": bool, "is_high_speed": bool, "num": int},
}


class ModuleConfig(Strict):
    """A kernel module the link needs loaded with these parameters (the virtual lab's dummy_hcd)."""

    # The kernel module hil loads for the link (dummy_hcd, xhci-pci), reloaded when the parameters differ.
    module: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    # Its module parameters (dummy_hcd's is_super_speed), checked against the ones hil knows.
    params: dict[str, StrictBool | StrictInt] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known_parameters(self) -> ModuleConfig:
        known = MODULE_PARAMETERS.get(self.module.replace("-", "_"), {})
        if self.params and not known:
            raise ValueError(
                f"hil does not know the parameters of module {self.module!r} "
                f"(known: {', '.join(sorted(MODULE_PARAMETERS))}): add them to MODULE_PARAMETERS"
            )
        for name, value in self.params.items():
            if name not in known:
                raise ValueError(f"module {self.module} has no parameter {name!r} (known: {', '.join(known)})")
            kind = known[name]
            if (kind is bool) != isinstance(value, bool):
                raise ValueError(f"module {self.module} parameter {name} must be {kind.__name__}, got {value!r}")
        return self


def _usb_speed(value: object) -> str:
    known = tuple(speed.value for speed in ceilings.UsbSpeed)
    if value not in known:
        raise ValueError(
            f"USB speed {value!r} has no ceiling in hil.verdict.ceilings, so nothing could be checked against "
            f"it (known: {', '.join(known)})"
        )
    return str(value)


def _one_of(known: tuple[int, ...], what: str) -> AfterValidator:
    def check(value: int) -> int:
        if value not in known:
            raise ValueError(
                f"{what} {value!r} has no ceiling in hil.verdict.ceilings (known: {', '.join(map(str, known))})"
            )
        return value

    return AfterValidator(check)


# The sys.usb.config function names hil's gadget functions have on Android (Function.android_name).
ANDROID_FUNCTIONS = ("mass_storage", "mtp", "rndis", "ncm", "ecm")
AndroidFunction = Literal[ANDROID_FUNCTIONS]  # type: ignore[valid-type]


class AndroidGadgetConfig(Strict):
    """How the android gadget backend (hil.lab.usb_gadget.android) drives this board's sys.usb.config."""

    # The functions this BSP's init.*.usb.rc has triggers for: AOSP's init.usb.configfs.rc has mtp and
    # rndis; mass_storage, ncm and ecm are vendors' additions. A gadget with any other is refused up front.
    functions: list[AndroidFunction] = Field(default_factory=lambda: ["mtp", "rndis"], min_length=1)
    # The board's adb must stay up (the lab talks to it over adb, or loses it otherwise): every
    # configuration hil sets keeps `adb` in it ("mass_storage,adb").
    keep_adb: StrictBool = False
    # Bound on `getprop sys.usb.state` reaching the value set; beyond it the test is an ERROR.
    state_timeout_s: Number = Field(default=10.0, gt=0, le=300)
    # Where the board's own MTP responder stores the objects the host sends (Android: /sdcard).
    mtp_storage: str = Field(default="/sdcard", pattern=r"^/[A-Za-z0-9_./-]*$")

    @field_validator("functions")
    @classmethod
    def _no_repeats(cls, value: list[str]) -> list[str]:
        if repeated := sorted({name for name in value if value.count(name) > 1}):
            raise ValueError(f"functions named twice: {', '.join(repeated)}")
        return value


class UsbLink(Strict):
    type: Literal["usb"]
    # full, high or super (or 12, 480, 5000 Mb/s): what the link must negotiate, and its ceilings.
    speed: Annotated[str, AfterValidator(_usb_speed)]
    udc: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.:-]+$")  # the device role's UDC, for gadgets
    # A kernel module the link needs (the virtual lab's dummy_hcd, an xHCI driver), loaded before the tests.
    driver: ModuleConfig | None = None
    # dummy_hcd moves data by memcpy, not over a bus: it has no physical ceiling to check against.
    emulated: StrictBool = False
    # Who builds the gadget: hil through configfs, or Android's init through sys.usb.config (hil.lab.usb_gadget.gadget).
    gadget: Literal["configfs", "android"] = "configfs"
    android: AndroidGadgetConfig | None = None  # with gadget: android; its defaults when omitted

    @model_validator(mode="after")
    def _android_settings_need_android(self) -> UsbLink:
        if self.android is not None and self.gadget != "android":
            raise ValueError("`android` settings apply to `gadget: android` only (this link's gadget is configfs)")
        if self.gadget == "android" and self.udc is None:
            raise ValueError("gadget: android needs `udc`: the controller Android binds its gadget to")
        return self

    @property
    def android_gadget(self) -> AndroidGadgetConfig:
        """The android backend's settings (its defaults when boards.yaml gives none)."""
        return self.android or AndroidGadgetConfig()


class PcieLink(Strict):
    type: Literal["pcie"]
    # The generation and width the link must train to (an ERROR otherwise); the ceilings follow them.
    gen: Annotated[Int, _one_of(ceilings.PCIE_GENERATIONS, "PCIe generation")]
    lanes: Annotated[Int, _one_of(ceilings.PCIE_LANES, "PCIe lane count")]
    # The Max Payload Size the endpoint must run (read back from its config space): the TLP overhead.
    max_payload: Annotated[Int, _one_of(ceilings.PCIE_PAYLOADS, "PCIe max payload size")] = 256
    # Seed 002 §3.2: the kernel must run with pci=pcie_bus_perf (checked with the MPS read back).
    mps_policy: Literal["pcie_bus_perf"] | None = None
    # QEMU's emulated link: its trained state and payload are recorded, not enforced; no ceiling applies.
    emulated: StrictBool = False


Link = Annotated[UsbLink | PcieLink, Field(discriminator="type")]
# peer: the far end of a USB network adapter's cable (the lab PC running iperf3), on USB host pairs.
RoleName = Literal["host", "device", "rc", "ep", "peer"]


# labgrid's own rules for tag keys (labgrid.remote.common.TAG_KEY); values are kept to a plain charset.
TagKey = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]+$")]
TagValue = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+$")]
# Values of test parameters by parameter name, e.g. {bs: [1M], function: [ecm]}.
ParamValues = dict[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")], list[str | int]]


class PlaceConfig(Strict):
    """A labgrid place, by name or by tags, that hil reserves through the coordinator for a role's target."""

    # The place's name on the coordinator, or
    name: TagValue | None = None
    # tags any free place with all of them matches (board: rk3399, cable: usb3).
    tags: dict[TagKey, TagValue] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _names_something(self) -> PlaceConfig:
        if self.name is None and not self.tags:
            raise ValueError("a place needs a name or tags (e.g. {tags: {kind: vlab}})")
        if "name" in self.tags:
            raise ValueError("give the place's name as `name`, not as a tag")
        return self

    def filters(self) -> dict[str, str]:
        """The coordinator's reservation filter: tags, plus `name` (the coordinator matches it too)."""
        return {**self.tags, **({"name": self.name} if self.name else {})}

    def describe(self) -> str:
        return " ".join(f"{key}={value}" for key, value in self.filters().items())


class RoleConfig(Strict):
    target: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")  # a target of the pair's labgrid environment
    # On a shared lab: the place this target is reserved on (its env target then holds a RemotePlace).
    place: PlaceConfig | None = None

    @field_validator("place", mode="before")
    @classmethod
    def _name_alone(cls, value: object) -> object:
        return {"name": value} if isinstance(value, str) else value


class PairConfig(Strict):
    # One line for the reports: the boards, the link, the cabling.
    description: str = ""
    # labgrid environment file, relative to boards.yaml (hil:NAME: one shipped with hil); --lg-env/LG_ENV,
    # labgrid's own option, names it for every pair instead.
    env: str | None = None
    vlab: StrictBool = False  # its targets boot the virtual lab image, which hil builds first
    # The clock its figures are measured on: `real` (the world's: a real board's, or the virtual board's when it runs
    # on the PC's time) or `virtual` (a vlab pair only: the virtual board's instruction-counted clock, so a figure
    # measured inside the guest does not move with the PC's load; docs/virtual-lab.md). Results of the two are
    # never compared: a virtual-clock result's key carries `clock=virtual`.
    clock: Literal["real", "virtual"] = "real"
    # The virtual clock's speed: the guest executes this many million instructions in a second of its clock (QEMU's
    # -icount shift: 125 is shift 3, 1000 is shift 0). A path that needs more CPU than 125 to do what its procedure
    # measures (the modem's paced streams) takes a faster one; a figure of one speed is not one of another: the key
    # names a speed other than 125 (clock=virtual-1000mips).
    virtual_mips: Literal[125, 250, 500, 1000] = 125
    # The link between the roles, `type: usb` or `type: pcie`: what it must negotiate and so its ceilings.
    # (`link` is validated before `roles`, field order, not YAML order: a role mismatch is reported at `roles`.)
    link: Link
    # The pair's roles (host, device, rc, ep, peer), each a target of the environment (or a place).
    roles: dict[RoleName, RoleConfig]
    settings: dict[str, Any] = Field(default_factory=dict)  # typed by the catalogue's Settings
    # The band (and sampling) each metric this pair gates must meet; a metric not named is not measured here.
    metrics: dict[str, MetricConfig] = Field(default_factory=dict)
    # The performance profile applied on the roles before each measurement (hil.inventory.tuning).
    tuning: TuningConfig | None = None
    # The smallest `--matrix` that runs this pair: `full` keeps it out of the quick suite unless `--board`
    # names it (say why beside it).
    matrix: Literal["quick", "full"] = "quick"
    # Only these values of these test parameters on this pair, e.g. {bs: [1M], function: [ecm]}: its other
    # cases are deselected. Parameters not named here run all their values.
    only: ParamValues = Field(default_factory=dict)
    # The same, in quick runs only: what the quick gate measures on this pair when other pairs cover the rest
    # (say which beside it); `--matrix full` runs every value.
    quick_only: ParamValues = Field(default_factory=dict)

    @field_validator("only", "quick_only")
    @classmethod
    def _only_lists_values(cls, value: dict[str, list[str | int]], info: ValidationInfo) -> dict[str, list[str | int]]:
        if empty := [name for name, values in value.items() if not values]:
            raise ValueError(
                f"`{info.field_name}` lists no value for {', '.join(empty)}: that would deselect all its cases"
            )
        return value

    @field_validator("roles")
    @classmethod
    def _roles_fit_link(cls, value: dict[str, RoleConfig], info: ValidationInfo) -> dict[str, RoleConfig]:
        link = info.data.get("link")
        if link is None:  # the link itself is invalid: that error is reported instead
            return value
        wanted = {"usb": {"host", "device"}, "pcie": {"rc", "ep"}}[link.type]
        optional = {"usb": {"peer"}, "pcie": set()}[link.type]
        if link.type == "pcie" and set(value) == {"rc"}:  # an endpoint that is a drive (NVMe), not a target
            return value
        if set(value) - optional != wanted:
            also = f" (and optionally {sorted(optional)})" if optional else ""
            raise ValueError(f"a {link.type} pair needs roles {sorted(wanted)}{also}, found {sorted(value)}")
        on_places = {name for name, role in value.items() if role.place is not None}
        if on_places and on_places != set(value):
            raise ValueError(
                f"roles {sorted(on_places)} name places and {sorted(set(value) - on_places)} do not: a pair is "
                "either reserved through the coordinator or local, not both"
            )
        by_target: dict[str, PlaceConfig | None] = {}
        for name, role in value.items():
            if by_target.setdefault(role.target, role.place) != role.place:
                raise ValueError(
                    f"roles on target {role.target!r} name different places: one target is one board ({name})"
                )
        return value

    @model_validator(mode="after")
    def _consistent(self) -> PairConfig:
        if self.remote and self.vlab:
            raise ValueError(
                "vlab: true builds and boots the virtual lab image on this machine; a pair on places runs on the "
                "exporter's boards: remove vlab (start the lab with `python -m hil.vlab.lab start`)"
            )
        if self.clock == "virtual" and not self.vlab:
            raise ValueError("clock: virtual is the virtual board's instruction-counted clock: vlab: true pairs only")
        if self.virtual_mips != 125 and self.clock != "virtual":
            raise ValueError("virtual_mips is the speed of the virtual clock: set clock: virtual with it")
        unknown = sorted(set(self.tuning.roles or ()) - set(self.roles)) if self.tuning else []
        if unknown:
            raise ValueError(f"tuning names roles {unknown} the pair does not have (roles: {sorted(self.roles)})")
        return self

    @property
    def clock_name(self) -> str:
        """The clock as results name it: real, virtual (125 MIPS) or virtual-<speed>mips."""
        return self.clock if self.virtual_mips == 125 else f"{self.clock}-{self.virtual_mips}mips"

    @property
    def remote(self) -> bool:
        """The pair's roles are labgrid places reserved through the coordinator."""
        return any(role.place is not None for role in self.roles.values())


class Defaults(Sampling):
    max_cv: Percent = 0.05
    min_samples: Int = Field(default=5, ge=2)
    max_samples: Int = Field(default=20, ge=2)
    budget_s: Number = Field(default=300.0, gt=0)
    warmup: Int = Field(default=1, ge=0)
    min_effect: Percent = 0.05
    run_spread: Percent = 0.01


class CoordinatorConfig(Strict):
    """The labgrid coordinator of a shared lab, for the pairs that name places."""

    # HOST:PORT; --lg-coordinator and LG_COORDINATOR override it.
    address: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.:\[\]-]+$")
    # How long a reservation may wait for a place held by someone else before the pair's tests are ERRORs.
    wait_s: Number = Field(default=600.0, gt=0)


class Inventory(Strict):
    # Sampling settings every metric of every pair starts from.
    defaults: Defaults = Field(default_factory=Defaults)
    # The labgrid coordinator of a shared lab (pairs whose roles name places).
    coordinator: CoordinatorConfig = Field(default_factory=CoordinatorConfig)
    # The board pairs, by name: what `--board` selects and every result names.
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
