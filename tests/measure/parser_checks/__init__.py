"""Each parser's checks live beside its tool: tests/measure/parser_checks/<tool>.py for hil/measure/<tool>.py.

A module here names the parsers of its hil.measure module and gives, per parser:
- ORACLES: how a value it returned is read from the text by other means (test_parser_fuzz.py);
- INVALIDATIONS: edits of a valid output that make it no measurement of what was asked, which must never
  give a number (test_parser_validity.py);
- BASES, for a parser nobody has captured output of: valid outputs rendered from the driver's printf;
- NO_REAL_CAPTURE: why its fuzzing cannot show a valid value.
Adding a parser adds its module here; no table elsewhere names it.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any

from .edits import Base, Edit, Oracle

TABLES = ("ORACLES", "INVALIDATIONS", "BASES", "NO_REAL_CAPTURE")
SHARED = ("edits",)


@dataclass(frozen=True)
class ParserChecks:
    oracles: dict[str, Oracle] = field(default_factory=dict)
    invalidations: dict[str, dict[str, Edit]] = field(default_factory=dict)
    bases: dict[str, Any] = field(default_factory=dict)
    no_real_capture: dict[str, str] = field(default_factory=dict)


def collect() -> ParserChecks:
    """Every module's tables, merged; a module may only speak of its own tool's parsers."""
    checks = ParserChecks()
    for info in pkgutil.iter_modules(__path__):
        if info.name in SHARED:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for table in TABLES:
            entries = getattr(module, table, {})
            foreign = [name for name in entries if not name.startswith(f"hil.measure.{info.name}.")]
            assert not foreign, f"parser_checks/{info.name}.py speaks of other tools' parsers: {foreign}"
            getattr(checks, table.lower()).update(entries)
    return checks


__all__ = ["Base", "Edit", "Oracle", "ParserChecks", "collect"]
