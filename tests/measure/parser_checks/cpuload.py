"""hil.measure.cpuload's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

from typing import Any

from .edits import (
    Edit,
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


def _core_line(change: Any) -> Edit:
    """cpu1's line (the last core's in every capture) given to `change`, its counters as words."""

    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        lines = text.split("\n")
        index = max(i for i, line in enumerate(lines) if line.startswith("cpu") and line[3:4].isdigit())
        lines[index] = change(lines[index].split())
        return "\n".join(lines), asked

    return edit


STAT: dict[str, Edit] = {
    # A kernel message cut into the core's line: its softirq and later counters went to the next line.
    "a core's line cut by a kernel message": _core_line(
        lambda w: " ".join(w[:5]) + "[   12.345678] usb 1-1: reset high-speed USB device\n" + " ".join(w[5:])
    ),
    "a core's line cut short": _core_line(lambda w: " ".join(w[:5]) + "\n" + " ".join(w[5:])),
    "a core above the total": _core_line(lambda w: " ".join([w[0], str(int(w[1]) * 10), *w[2:]])),
    "a core's softirq above the total": _core_line(lambda w: " ".join([*w[:7], str(int(w[7]) + 10**6), *w[8:]])),
}


INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.cpuload.parse_stat": STAT,
}
