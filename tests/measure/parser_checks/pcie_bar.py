"""hil.measure.pcie_bar's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

import math
import re
from typing import Any

from hil.measure import pcie_bar

from .edits import (
    Edit,
    Oracle,
    carriage_return,
    earlier_whole_last_garbled,
    ends_in_cr,
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


def _one_loop(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The same run as one loop, its rates and checksum what the program prints for it: the one pass stores
    loops-1 = 0 everywhere, so its checksum is 0 whatever the BAR returns."""
    m = list(pcie_bar._LINE.finditer(text))[-1]
    size, loops = int(m["bytes"]), int(m["loops"])
    store_ns, load_ns = int(m["store_ns"]) // loops, int(m["load_ns"]) // loops
    line = (
        f"bytes={size} width={m['width']} loops=1 store_ns={store_ns} load_ns={load_ns} "
        f"store_mb_s={size * 1000 / store_ns:.3f} load_mb_s={size * 1000 / load_ns:.3f}"
    )
    return re.sub(r"checksum=[0-9a-f]+", "checksum=0", text.replace(m.group(0), line)), asked


BAR = {
    "one loop, checksum 0": _one_loop,
    "last result ends in CR": ends_in_cr("bytes="),
    "last result overwritten after a CR": earlier_whole_last_garbled("bytes=", carriage_return),
    "last checksum garbled": earlier_whole_last_garbled("checksum=", lambda line: line.replace("=", "=x")),
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
