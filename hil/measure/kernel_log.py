"""A run's own part of a board's kernel log: a marker of its own written to /dev/kmsg before the run, and the
lines after it (the DMA tests' summaries, the interrupt-latency lines)."""

from __future__ import annotations

import secrets

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.verdict.errors import MeasurementError, ParseError


def after_marker(log: str, marker: str, summary: str | None = None) -> str:
    """The kernel log written after `marker` (hil writes one to /dev/kmsg before each run); with `summary`, a
    ParseError unless exactly one line of it holds that text: one run logs one summary, so a second is another
    run's, and none means the run's own line was cut (the parsers would take an earlier one as this run's)."""
    index = log.rfind(marker)
    if index < 0:
        raise MeasurementError(f"the kernel log lost hil's marker {marker!r} (ring buffer overrun?)", raw_output=log)
    after = log[index + len(marker) :]
    if summary is not None:
        count = sum(summary in line for line in after.split("\n"))
        if count != 1:
            found = f"the kernel log holds {count} lines with {summary!r} after hil's marker"
            raise ParseError(f"{found}, not the run's one", raw_output=after)
    return after


def mark(role: Role, name: str = "hil-pcie-dma") -> str:
    """A marker of its own written into `role`'s kernel log, for `after_marker`."""
    marker = f"{name}-{secrets.token_hex(4)}"
    role.run(shell.write("/dev/kmsg", marker), timeout=30)
    return marker
