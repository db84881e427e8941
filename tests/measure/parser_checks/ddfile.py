"""hil.measure.ddfile's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

from typing import Any

from hil.measure import dd, ddfile
from hil.measure.parsing import without_kernel_messages

from .dd import _dd, _dd_oracle
from .edits import (
    Edit,
    Oracle,
    on_last_line,
)


def _dd_sync_oracle(text: str, asked: dict[str, Any], result: ddfile.SyncedWrite) -> None:
    lines = [line.strip() for line in without_kernel_messages(text.replace("\r", "\n")).split("\n") if line.strip()]
    label, start, end = lines[-1].split(" ")
    assert label == "sync-ns" and start.isascii() and end.isascii(), lines[-1]
    assert result.sync_seconds == (int(end) - int(start)) / 1e9 >= 0
    _dd_oracle("\n".join(lines[:-1]), asked, dd.DdTransfer(result.bytes, result.dd_seconds))


DDFILE = {
    **_dd(2),
    "sync ends before it starts": on_last_line(r"sync-ns ([0-9]+) ([0-9]+)", lambda m: f"sync-ns {m[2]} {m[1]}"),
    # `date` without %N: seconds only, which read as nanoseconds make a sync of 1 ns.
    "date printed no nanoseconds": on_last_line(
        r"sync-ns ([0-9]+) ([0-9]+)", lambda m: f"sync-ns {m[1][:10]} {int(m[1][:10]) + 1}"
    ),
    "a clock of whole seconds": on_last_line(
        r"sync-ns ([0-9]+) ([0-9]+)", lambda m: f"sync-ns {m[1][:10]}000000000 {m[1][:10]}000000000"
    ),
    "a sync of one tick": on_last_line(r"sync-ns ([0-9]+) ([0-9]+)", lambda m: f"sync-ns {m[1]} {int(m[1]) + 1}"),
}


ORACLES: dict[str, Oracle] = {
    "hil.measure.ddfile.parse_synced": _dd_sync_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.ddfile.parse_synced": DDFILE,
}
