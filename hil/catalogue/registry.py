"""The catalogue: every metric and setting hil knows, by name, as families.yaml of this package declares it."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from hil.catalogue.model import Family, Metric, Setting

T = TypeVar("T")


class UnknownName(KeyError):
    """A metric or setting name the catalogue does not have; the message suggests close names."""

    def __str__(self) -> str:
        return str(self.args[0])


def _find(kind: str, known: Mapping[str, T], name: str) -> T:
    """known[name], else UnknownName suggesting close names."""
    if name in known:
        return known[name]
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    raise UnknownName(f"unknown {kind} {name!r}" + (f" (did you mean {', '.join(close)}?)" if close else ""))


@dataclass(frozen=True)
class Catalogue:
    families: tuple[Family, ...]

    def __post_init__(self) -> None:
        seen: dict[str, str] = {}
        prefixes: dict[str, str] = {}
        for family in self.families:
            for name in [m.name for m in family.metrics] + [s.name for s in family.settings]:
                if name in seen:
                    raise ValueError(f"{name} is defined twice (families {seen[name]} and {family.name})")
                seen[name] = family.name
            for setting in family.settings:
                owner = prefixes.setdefault(setting.prefix, family.name)
                if owner != family.name:
                    raise ValueError(f"settings prefix {setting.prefix!r} used by {owner} and {family.name}")

    @property
    def metrics(self) -> dict[str, Metric]:
        return {metric.name: metric for family in self.families for metric in family.metrics}

    @property
    def settings(self) -> dict[str, Setting]:
        return {setting.name: setting for family in self.families for setting in family.settings}

    def metric(self, name: str) -> Metric:
        return _find("metric", self.metrics, name)

    def setting(self, name: str) -> Setting:
        return _find("setting", self.settings, name)

    def family_viewed_by(self, view: type) -> Family:
        """The family whose settings `view` reads."""
        for family in self.families:
            if family.view is view:
                return family
        raise UnknownName(f"{view.__name__} is the settings view of no family of the catalogue")

    def defaults(self) -> dict[str, Any]:
        return {name: setting.default for name, setting in self.settings.items()}

    def check_settings(self, values: Mapping[str, Any]) -> list[tuple[str, str]]:
        """Cross-checks of every family whose settings appear in `values` (defaults filled in).

        Returns (setting name the problem is reported at, problem) pairs; types and ranges are the
        schema's job (hil.inventory.settings), this only runs the families' own checks.
        """
        merged = {**self.defaults(), **values}
        problems = []
        for family in self.families:
            mine = {s.name: merged[s.name] for s in family.settings}
            given = [name for name in values if name in mine]
            for check in family.checks:
                if problem := check(mine):
                    problems.append((given[0] if given else family.settings[0].name, problem))
        return problems
