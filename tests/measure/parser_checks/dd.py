"""hil.measure.dd's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

import math
import re
from typing import Any

from hil.measure import dd
from hil.measure.parsing import without_kernel_messages

from .edits import (
    Edit,
    Oracle,
    cut_last_line,
    on_last_line,
)


def _dd_oracle(text: str, asked: dict[str, Any], result: dd.DdTransfer) -> None:
    lines = [line.strip() for line in without_kernel_messages(text.replace("\r", "\n")).split("\n") if line.strip()]
    summary = lines[-1]
    assert summary.isascii(), summary
    assert lines[-2].endswith(" records out") and lines[-3].endswith(" records in"), lines[-3:]
    count, _, rest = summary.partition(" ")
    seconds = rest.partition(" copied, ")[2].partition(" s, ")[0]
    assert (count, float(seconds)) == (str(result.bytes), result.seconds), summary
    printed, unit = rest.rpartition(", ")[2].removesuffix("B/s").split(" ")  # dd's own rate: "28.7 G"
    scale = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[unit]
    assert math.isclose(result.bytes / result.seconds, float(printed) * scale, rel_tol=0.06), summary
    if asked["expected_bytes"] is not None:
        assert result.bytes == asked["expected_bytes"]
    assert result.bytes > 0 and result.seconds > 0 and math.isfinite(result.mb_per_s)


def _first_digit_flipped(match: re.Match[str]) -> str:
    seconds = match.group(1)
    first = next(i for i, c in enumerate(seconds) if c in "123456789")
    return f" {seconds[:first]}{int(seconds[first]) % 9 + 1}{seconds[first + 1 :]} s, "


def _dd(line_from_end: int) -> dict[str, Edit]:
    seconds = r" ([0-9][0-9.e+-]*) s, "
    return {
        "seconds digit flipped": on_last_line(seconds, _first_digit_flipped, line_from_end=line_from_end),
        "bytes other than asked": on_last_line(
            r"^([0-9]+) byte", lambda m: f"{int(m.group(1)) + 512} byte", line_from_end=line_from_end
        ),
        "error line": lambda text, asked: ("dd: error writing '/dev/sda': Input/output error\n" + text, asked),
    }


ORACLES: dict[str, Oracle] = {
    "hil.measure.dd.parse": _dd_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.dd.parse": {**_dd(1), "summary cut short": cut_last_line},
}
