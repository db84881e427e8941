"""hil.measure.pcie_irq's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .edits import (
    Base,
    Edit,
    Oracle,
    carriage_return,
    cut_last_line,
    earlier_whole_last_garbled,
    ends_in_cr,
    on_last_line,
)


def _irq_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    kind = asked.get("kind", "elbi")
    line = [line for line in text.split("\n") if f"{kind} count=" in line][-1]
    printed = int(line.rsplit(" ", 1)[1].removesuffix("us"))
    assert printed / 1.3 - 1 <= result.us_per_interrupt <= printed * 1.3 + 1, (printed, result)


def _irq_bases() -> list[Base]:
    """seed 002's `elbi count=%d %lluus` lines (tests/data/pcie_irq/seed-format.txt), timed and counted."""
    timed = "[  100.000123] elbi count=166666 6us\n[  101.000456] elbi count=333000 6us\n"
    return [
        Base("printf-timed", timed, {"kind": "elbi"}),
        Base("printf-one", "msi count=500000 2us\n", {"kind": "msi"}),
    ]


IRQ = {
    "last line garbled": on_last_line(r"count=([0-9])", lambda m: "count=O"),
    "cut last line": cut_last_line,
    "figure needs more interrupts than counted": on_last_line(r"count=([0-9]+)", lambda m: "count=3"),
    "last line ends in CR": ends_in_cr(" count="),
    "last line overwritten after a CR": earlier_whole_last_garbled(" count=", carriage_return),
}


ORACLES: dict[str, Oracle] = {
    "hil.measure.pcie_irq.parse": _irq_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.pcie_irq.parse": IRQ,
}
BASES: dict[str, Callable[[], list[Base]]] = {
    "hil.measure.pcie_irq.parse": _irq_bases,
}
NO_REAL_CAPTURE: dict[str, str] = {
    "hil.measure.pcie_irq.parse": "no ELBI/MSI kernel log has been captured (seed 002 §6-7 gives the printf only)",
}
