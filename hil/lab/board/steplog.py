"""labgrid's step log, kept for the whole run after a console that never printed.

labgrid's SerialLoggingReporter (26.0) makes a logger for a console at its first step, but its line buffer
only at the first read that returned data; its flush, before every non-console step once any console has
printed, reads the buffer of every console that has a logger. A console that was written to and never
answered (a board that never reached its boot loader, a dead serial cable) then makes every later flush
raise KeyError: labgrid turns each into a warning, and StepLogger's line for that step (power, shell,
strategy transitions) is lost for the rest of the run, on every board.
"""

from __future__ import annotations

from collections import defaultdict

from labgrid.logging import StepLogger


def keep_step_log() -> None:
    """Give every console an empty buffer until it prints (idempotent; nothing when StepLogger is not on)."""
    reporter = getattr(StepLogger, "_serial_logger", None)
    if reporter is not None and not isinstance(reporter.bufs, defaultdict):
        reporter.bufs = defaultdict(bytes, reporter.bufs)
