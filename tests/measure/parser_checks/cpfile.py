"""hil.measure.cpfile's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

import math
from typing import Any

from hil.measure import cpfile
from hil.measure.parsing import without_kernel_messages

from .edits import (
    Edit,
    Oracle,
    field,
    on_last_line,
)


def _cp_oracle(text: str, asked: dict[str, Any], result: cpfile.FileCopy) -> None:
    lines = [line.strip() for line in without_kernel_messages(text.replace("\r", "\n")).split("\n") if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("hil-cp: "), lines
    fields = dict(part.split("=", 1) for part in lines[0].split(" ")[1:])
    start, copied, synced = (int(fields[key]) for key in ("start", "copied", "synced"))
    assert int(fields["bytes"]) == result.bytes == asked["expected_bytes"], lines[0]
    assert (result.cp_seconds, result.sync_seconds) == ((copied - start) / 1e9, (synced - copied) / 1e9)
    assert result.cp_seconds + result.sync_seconds >= cpfile.MIN_SECONDS and math.isfinite(result.mb_per_s)


CP = {
    "other size than the source": field("bytes", lambda n: n + 1),
    "clock went back": on_last_line(r"copied=([0-9]+) synced=([0-9]+)", lambda m: f"copied={m[2]} synced={m[1]}"),
    "cp printed an error": lambda text, asked: ("cp: error writing 'x': No space left on device\n" + text, asked),
}


ORACLES: dict[str, Oracle] = {
    "hil.measure.cpfile.parse": _cp_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.cpfile.parse": CP,
}
