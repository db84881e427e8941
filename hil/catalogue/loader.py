"""Builds the catalogue from its declarations, families.yaml beside this module: the metrics and settings are
data; a family's settings view and cross-checks are code, in a module of this package the data names them in.
A declaration the loader cannot build is a CatalogueError naming the file, the family, the entry and the key."""

from __future__ import annotations

import re
from importlib import import_module
from pathlib import Path
from typing import Any

import yaml

from hil.catalogue.ceilings import CeilingRule, PcieBus, UsbBus, UsbFrames, UsbInterrupt, UsbNetwork
from hil.catalogue.model import Family, Metric, Setting
from hil.catalogue.registry import Catalogue
from hil.verdict.ceilings import Transfer
from hil.verdict.spec import Direction, Floor

FAMILIES_FILE = Path(__file__).with_name("families.yaml")
RULES = {rule.__name__: rule for rule in (PcieBus, UsbBus, UsbFrames, UsbInterrupt, UsbNetwork)}
KINDS = {kind.__name__: kind for kind in (int, float, bool, str)}
CALL = re.compile(r"(\w+)(?:\((.*)\))?")  # a rule as the data names it: PcieBus, UsbBus(transfer=bulk)
NUMBER = (int, float)

# The keys of each kind of entry and the YAML types of their values; the first `required` keys must be given.
FAMILY = {"name": str, "title": str, "metrics": list, "settings": list, "view": str, "checks": list}
METRIC = {"name": str, "unit": str, "direction": str, "reads": str, "seed": str, "description": str}
METRIC |= {"ceiling": str, "floor": dict, "check_cv": bool, "needs": list, "suspends_board": bool}
SETTING = {"name": str, "kind": str, "default": (*NUMBER, bool, str), "help": str}
SETTING |= {"minimum": NUMBER, "maximum": NUMBER, "choices": list}
FLOOR = {"value": NUMBER, "unit": str, "basis": str}


class CatalogueError(ValueError):
    """A declaration of families.yaml the catalogue cannot be built from."""


def load(path: Path = FAMILIES_FILE) -> Catalogue:
    try:
        # libyaml's parser where PyYAML has it: every pytest run and every `hil compare` loads this file (45 -> 5 ms)
        families = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise CatalogueError(f"{path.name}: {exc}") from None
    if not isinstance(families, list):
        raise CatalogueError(f"{path.name}: must be a list of families")
    built = tuple(_family(entry, _label(path.name, "family", entry, n)) for n, entry in enumerate(families))
    try:
        return Catalogue(built)
    except ValueError as exc:  # a name declared twice, a settings prefix shared by two families
        raise CatalogueError(f"{path.name}: {exc}") from None


def _label(where: str, kind: str, entry: Any, n: int) -> str:
    """Where an entry is: by its name, else by its place in its list."""
    name = entry.get("name") if isinstance(entry, dict) else None
    return f"{where}: {kind} {name}" if isinstance(name, str) else f"{where}: {kind} number {n + 1}"


def _fields(entry: Any, keys: dict[str, Any], required: int, where: str) -> dict[str, Any]:
    """`entry` as a mapping of `keys`: the first `required` of them given, no others, each value of its types."""
    if not isinstance(entry, dict):
        raise CatalogueError(f"{where}: must be a mapping of {', '.join(keys)}")
    if missing := [key for key in list(keys)[:required] if key not in entry]:
        raise CatalogueError(f"{where}: missing {', '.join(missing)}")
    for key, value in entry.items():
        if key not in keys:
            raise CatalogueError(f"{where}: unknown key {key!r} (known: {', '.join(keys)})")
        types = keys[key] if isinstance(keys[key], tuple) else (keys[key],)
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise CatalogueError(f"{where}: {key} must be {' or '.join(t.__name__ for t in types)}, not {value!r}")
        if key in ("needs", "choices", "checks") and not all(isinstance(item, str) for item in value):
            raise CatalogueError(f"{where}: {key} must be a list of names, not {value!r}")
    return dict(entry)


def _build(kind: type, fields: dict[str, Any], where: str) -> Any:
    """kind(**fields), its own refusal (a metric name not dotted, an unknown unit) named where it was declared."""
    try:
        return kind(**fields)
    except (TypeError, ValueError) as exc:
        raise CatalogueError(f"{where}: {exc}") from None


def _family(entry: Any, where: str) -> Family:
    fields = _fields(entry, FAMILY, 3, where)
    fields["metrics"] = tuple(_metric(m, _label(where, "metric", m, n)) for n, m in enumerate(fields["metrics"]))
    settings = fields.get("settings", [])
    fields["settings"] = tuple(_setting(s, _label(where, "setting", s, n)) for n, s in enumerate(settings))
    if "view" in fields:
        fields["view"] = _code(fields["view"], f"{where}: view")
    fields["checks"] = tuple(_code(name, f"{where}: checks") for name in fields.get("checks", ()))
    return _build(Family, fields, where)


def _code(reference: Any, where: str) -> Any:
    """`usb_device.MscSettings`: a name in a module of this package."""
    module, _, name = str(reference).rpartition(".")
    try:
        return getattr(import_module(f"hil.catalogue.{module}"), name)
    except (ModuleNotFoundError, AttributeError):
        raise CatalogueError(f"{where}: no {name!r} in hil/catalogue/{module}.py (give module.name)") from None


def _metric(entry: Any, where: str) -> Metric:
    fields = _fields(entry, METRIC, 6, where)
    if fields["direction"] not in {d.value for d in Direction}:
        raise CatalogueError(f"{where}: direction must be {' or '.join(d.value for d in Direction)}")
    fields["direction"] = Direction(fields["direction"])
    if "ceiling" in fields:
        fields["ceiling"] = _rule(fields["ceiling"], f"{where}: ceiling")
    if "floor" in fields:
        fields["floor"] = _build(Floor, _fields(fields["floor"], FLOOR, 3, f"{where}: floor"), f"{where}: floor")
    fields["needs"] = tuple(fields.get("needs", ()))
    return _build(Metric, fields, where)


def _rule(text: str, where: str) -> CeilingRule:
    """A rule of hil.catalogue.ceilings by its class's name, its fields given as text: UsbBus(transfer=bulk)."""
    call = CALL.fullmatch(text.replace(" ", ""))
    if call is None or call[1] not in RULES:
        raise CatalogueError(f"{where}: {text!r} is none of {', '.join(RULES)} (e.g. UsbBus(transfer=bulk))")
    try:
        args = dict(arg.split("=", 1) for arg in call[2].split(",")) if call[2] else {}
        if "transfer" in args:  # the one field that is no text: UsbBus's transfer type
            args["transfer"] = Transfer(args["transfer"])
    except ValueError as exc:
        raise CatalogueError(f"{where}: {text!r}: {exc} (fields as name=value)") from None
    return _build(RULES[call[1]], args, f"{where}: {text!r}")


def _setting(entry: Any, where: str) -> Setting:
    fields = _fields(entry, SETTING, 4, where)
    kind = fields["kind"] = KINDS.get(fields["kind"])
    if kind is None:
        raise CatalogueError(f"{where}: kind must be one of {', '.join(KINDS)}")
    if kind is float and type(fields["default"]) is int:  # YAML reads 0 as an int
        fields["default"] = float(fields["default"])
    if type(fields["default"]) is not kind:
        raise CatalogueError(f"{where}: default {fields['default']!r} is not of kind {kind.__name__}")
    fields["choices"] = tuple(fields.get("choices", ()))
    return _build(Setting, fields, where)
