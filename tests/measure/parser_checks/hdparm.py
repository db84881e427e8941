"""hil.measure.hdparm's parser: its fuzz oracle (the figure read from the text by other means) and invalidations
(outputs that must never give a number)."""

from __future__ import annotations

import math
import re
from typing import Any

from hil.measure import hdparm

from .edits import Edit, Oracle, clean_lines, cut_last_line, on_last_line, two_runs


def _hdparm_oracle(text: str, asked: dict[str, Any], result: hdparm.HdparmRead) -> None:
    lines = [line for line in clean_lines(text.replace("\r", "")) if line.strip()]
    assert lines[0] == f"{asked['device']}:", lines
    words = lines[-1].split()  # Timing buffered disk reads: 58 MB in 3.09 seconds = 18.78 MB/sec
    mib, seconds, rate, unit = int(words[4]), float(words[7]), float(words[10]), words[11]
    assert result.bytes == mib * 2**20
    per_unit = 2**20 if unit == "MB/sec" else 1024
    assert math.isclose(result.bytes / result.seconds, rate * per_unit, rel_tol=1e-9)
    assert abs(result.seconds - seconds) <= 0.005 + result.seconds * 0.005 / rate


def _digit(group: str) -> Edit:
    """The first significant digit of the timing line's `group` changed: a figure the other two contradict."""
    patterns = {"MB": r"reads: +([0-9]+) MB", "seconds": r"in +([0-9.]+) seconds", "rate": r"= +([0-9.]+) [kM]B"}

    def flip(match: re.Match[str]) -> str:
        value = match.group(1)
        first = next(i for i, c in enumerate(value) if c in "123456789")
        changed = f"{value[:first]}{int(value[first]) % 9 + 1}{value[first + 1 :]}"
        return match.group(0).replace(value, changed, 1)

    return on_last_line(patterns[group], flip)


INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.hdparm.parse": {
        "MB digit changed": _digit("MB"),
        "seconds digit changed": _digit("seconds"),
        "rate digit changed": _digit("rate"),
        "timing cut short": cut_last_line,
        "two runs": two_runs,
        "another device": lambda text, asked: (text, {"device": asked["device"] + "1"}),
        "an error before the timing": lambda text, asked: (
            text.replace(" Timing", " BLKFLSBUF failed: Input/output error\n Timing", 1),
            asked,
        ),
    },
}
ORACLES: dict[str, Oracle] = {"hil.measure.hdparm.parse": _hdparm_oracle}
