"""hil.measure.pcie_bar's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

import math
from typing import Any

from hil.measure import pcie_bar

from .edits import (
    Edit,
    Oracle,
    field,
    rate_doubled,
)


def _bar_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    fields = list(pcie_bar._LINE.finditer(text))[-1].groupdict()  # the line it took; the figures are checked
    assert (int(fields["bytes"]), int(fields["width"]), int(fields["loops"])) == (
        result.bytes,
        result.width,
        result.loops,
    )
    moved = result.bytes * result.loops * 1000
    assert math.isclose(result.store_mb_s, moved / int(fields["store_ns"]))
    assert math.isclose(result.load_mb_s, moved / int(fields["load_ns"]))
    assert abs(float(fields["store"]) - result.store_mb_s) < 0.001


BAR = {
    "store rate x2": rate_doubled("store_mb_s"),
    "load rate x2": rate_doubled("load_mb_s"),
    "bytes other than the rates": field("bytes", lambda n: n * 2),
}


ORACLES: dict[str, Oracle] = {
    "hil.measure.pcie_bar.parse": _bar_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.pcie_bar.parse": BAR,
}
