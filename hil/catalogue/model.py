"""The catalogue's vocabulary: a metric (what is measured, in which unit, which way is better), a setting
(a typed knob a family reads from boards.yaml) and a family (a suite's metrics and settings together).

Plain data, no pytest, no board. The definitions of the metrics hil gates are declared in families.yaml
of this package; boards.yaml only gives each metric's band on each pair.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hil.catalogue.ceilings import CeilingRule
from hil.verdict.spec import Direction, Floor
from hil.verdict.units import Quantity, quantity

METRIC_NAME = re.compile(r"^[a-z0-9]+(?:[._][a-z0-9]+)+$")
SETTING_NAME = re.compile(r"^[a-z0-9]+\.[a-z0-9_]+$")


@dataclass(frozen=True)
class Metric:
    """One gated figure.

    name: dotted, starting with its family's name ("usb.msc.read").
    unit: the canonical unit. Results are stored in it; a band given in another unit of the same
        quantity is converted into it when boards.yaml is loaded.
    direction: which way is better. It picks the words of a FAIL ("too slow" / "too high") and the
        side on which a change against a baseline counts as a regression.
    reads: which quantity of a tool's Measurement this metric takes ("throughput", "jitter"...).
    ceiling: the physical limit of the link it crosses (None: no link bounds it, e.g. latency).
    seed: where the procedure and the figures come from (a source document and section).
    check_cv: False for figures whose spread says nothing about stability (a loss that is 0 in most
        runs and 0.1% in one): their band alone decides.
    floor: the least a compliant figure can be (USB 2.0's resume timing): a sample below it is a FAIL.
    needs: metrics that decide whether this one's figure is valid, gated wherever this one is gated (a frame
        rate of corrupt frames, a UDP rate of lost datagrams is no achievement).
    suspends_board: its samples suspend the whole board to RAM: a virtual board boots for them through its firmware
        (hil.vlab.qemu says why).
    """

    name: str
    unit: str
    direction: Direction
    reads: str
    seed: str
    description: str
    ceiling: CeilingRule | None = None
    floor: Floor | None = None
    check_cv: bool = True
    needs: tuple[str, ...] = ()
    suspends_board: bool = False

    def __post_init__(self) -> None:
        if not METRIC_NAME.match(self.name):
            raise ValueError(f"metric name {self.name!r} must be dotted lower-case words, e.g. 'usb.msc.read'")
        quantity(self.unit)  # raises for an unknown unit

    @property
    def quantity(self) -> Quantity:
        return quantity(self.unit)


@dataclass(frozen=True)
class Setting:
    """A typed value a family reads from a pair's `settings` in boards.yaml (with a default).

    kind: int, float, bool or str; minimum/maximum bound numbers (inclusive); choices bound strings.
    """

    name: str  # "<family prefix>.<what>", e.g. "msc.backing_mb"
    kind: type
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not SETTING_NAME.match(self.name):
            raise ValueError(f"setting name {self.name!r} must look like 'family.name' (lower case)")
        if self.kind not in (int, float, bool, str):
            raise ValueError(f"setting {self.name}: kind must be int, float, bool or str")

    @property
    def prefix(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def attribute(self) -> str:
        """Its name in the family's settings view ("backing_mb" of "msc.backing_mb")."""
        return self.name.split(".", 1)[1]


# A cross-check over one family's settings (values by setting name, defaults filled in): returns a
# problem (naming the settings involved) or None. E.g. a transfer larger than its backing store.
SettingsCheck = Callable[[Mapping[str, Any]], str | None]


@dataclass(frozen=True)
class Family:
    """A suite's metrics and settings: `usb.msc` (mass-storage gadget), `usb.net`, `nvme`..."""

    name: str  # every metric name starts with it
    title: str
    metrics: tuple[Metric, ...]
    settings: tuple[Setting, ...] = ()
    checks: tuple[SettingsCheck, ...] = field(default=())
    # The frozen dataclass code reads the settings through (`pair.settings(MscSettings).backing_mb`): one
    # field per setting, named and typed as the setting is (checked here), so a test gets an int, not Any.
    view: type | None = None

    def __post_init__(self) -> None:
        for metric in self.metrics:
            if not metric.name.startswith(self.name + "."):
                raise ValueError(f"metric {metric.name} does not belong to family {self.name}")
        prefixes = {setting.prefix for setting in self.settings}
        if len(prefixes) > 1:
            raise ValueError(f"family {self.name}: settings must share one prefix, found {sorted(prefixes)}")
        if problem := _view_problem(self):
            raise ValueError(f"family {self.name}: {problem}")

    def read(self, value_of: Callable[[Setting], Any]) -> Any:
        """The family's settings view, each field given by `value_of(setting)`."""
        assert self.view is not None, f"family {self.name} has no settings"
        return self.view(**{setting.attribute: value_of(setting) for setting in self.settings})


def _view_problem(family: Family) -> str | None:
    """What is wrong with the family's settings view: a view's fields are exactly its settings, same types."""
    if family.view is None:
        return "settings need a view (a frozen dataclass with a field per setting)" if family.settings else None
    if not dataclasses.is_dataclass(family.view) or not family.view.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        return f"view {family.view.__name__} must be a frozen dataclass"
    types = typing.get_type_hints(family.view)
    fields = [f.name for f in dataclasses.fields(family.view)]
    wanted = {setting.attribute: setting.kind for setting in family.settings}
    if sorted(fields) != sorted(wanted):
        missing, extra = sorted(set(wanted) - set(fields)), sorted(set(fields) - set(wanted))
        return f"view {family.view.__name__} does not match the settings (missing {missing}, not settings {extra})"
    for name, kind in wanted.items():
        if types[name] is not kind:
            return f"view {family.view.__name__}.{name} is {types[name]}, its setting is {kind.__name__}"
    return None
