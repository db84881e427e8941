"""labgrid's step log, kept for the whole run after a console that never printed.

labgrid's SerialLoggingReporter (26.0) makes a console's logger at its first step but its line buffer only at
its first read with data, and flushes every console with a logger. A console that never answered (a dead
serial cable) then makes every later flush raise KeyError, and StepLogger's lines are lost for the rest of
the run, on every board.
"""

from __future__ import annotations

from collections import defaultdict

from labgrid.logging import StepLogger


def keep_step_log() -> None:
    """Give every console an empty buffer until it prints (idempotent; nothing when StepLogger is not on)."""
    reporter = getattr(StepLogger, "_serial_logger", None)
    if reporter is not None and not isinstance(reporter.bufs, defaultdict):
        reporter.bufs = defaultdict(bytes, reporter.bufs)
