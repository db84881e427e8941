"""hil.measure.mtp's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

import math
from typing import Any

from hil.measure import mtp
from hil.measure.parsing import without_kernel_messages

from .edits import (
    Edit,
    Oracle,
    field,
    insert_before_last,
    on_last_line,
)


def _mtp_oracle(text: str, asked: dict[str, Any], result: mtp.MtpTransfer) -> None:
    last = [line for line in without_kernel_messages(text.replace("\r", "\n")).split("\n") if line.strip()][-1]
    fields = dict(part.split("=", 1) for part in last.strip().split(" ")[1:])
    assert fields["exit"] == "0" and int(fields["bytes"]) == result.bytes == asked["expected_bytes"], last
    assert result.seconds == float(fields["end"]) - float(fields["start"]) >= mtp.MIN_SECONDS, last
    assert result.direction == asked["direction"] and math.isfinite(result.mb_per_s)


MTP = {
    "fewer bytes on the host": field("bytes", lambda n: n - 1),
    "tool failed": field("exit", lambda n: 1),
    "progress stopped short": on_last_line(
        r"Progress: ([0-9]+) of", lambda m: f"Progress: {int(m[1]) // 2} of", line_from_end=2
    ),
    "error line": insert_before_last("Error sending file: PTP_RC_GeneralError"),
}


ORACLES: dict[str, Oracle] = {
    "hil.measure.mtp.parse": _mtp_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.mtp.parse": MTP,
}
