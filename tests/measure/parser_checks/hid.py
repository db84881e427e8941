"""hil.measure.hid's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

from typing import Any

from hil.measure.parsing import without_kernel_messages

from .edits import (
    Edit,
    Oracle,
    field,
    rate_doubled,
)


def _hid_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    lines = without_kernel_messages(text.replace("\r\n", "\n").replace("\r", "\n")).split("\n")
    line = [line.rstrip() for line in lines if line.startswith("hid_throughput mode=")][-1]
    fields = dict(part.split("=", 1) for part in line.split()[1:])
    numbers = {key: int(fields[key]) for key in ("report_bytes", "reports", "first", "timed_reports", "timed_ns")}
    assert (fields["mode"], numbers) == (
        result.mode,
        {key: getattr(result, key) for key in numbers},
    )
    assert int(fields["corrupt"]) == 0 and int(fields["lost"]) == result.lost
    assert result.reports + result.lost == asked["count"] > result.first + result.timed_reports
    assert abs(float(fields["kB_s"]) - result.kb_per_s) < 0.001


HID = {
    "rate x2": rate_doubled("kB_s"),
    "time other than the rate": field("timed_ns", lambda n: n * 2),
    "other report size than asked": field("report_bytes", lambda n: n // 2),
    "reports lost": field("lost", lambda n: n + 3),
    "reports corrupt": field("corrupt", lambda n: n + 1),
}


ORACLES: dict[str, Oracle] = {
    "hil.measure.hid.parse": _hid_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.hid.parse": HID,
}
