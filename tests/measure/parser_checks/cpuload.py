"""hil.measure.cpuload's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

from typing import Any

from .edits import (
    Oracle,
    clean_lines,
)


def _procstat_oracle(text: str, asked: dict[str, Any], result: dict[str, tuple[int, ...]]) -> None:
    for name, counters in result.items():
        rows = []
        for line in clean_lines(text):
            tokens = line.split()
            numeric = all(t.isascii() and t.isdigit() for t in tokens[1:])
            if tokens and tokens[0] == name and 4 <= len(tokens) - 1 <= 10 and numeric:
                rows.append([int(t) for t in tokens[1:]])
        assert len(rows) == 1, (name, rows)
        assert tuple((rows[0] + [0] * 8)[:8]) == counters


ORACLES: dict[str, Oracle] = {
    "hil.measure.cpuload.parse_stat": _procstat_oracle,
}
NOT_YET: dict[str, str] = {
    "hil.measure.cpuload.parse_stat": "counters without a figure of their own to contradict",
}
