"""SIGTERM and SIGHUP (a Jenkins abort, a closed terminal) end a run the way Ctrl-C does.

Python's default for both is to die on the spot: QEMU orphaned, gadgets left bound, results.json unfinished.
pytest already does everything right for Ctrl-C, so these signals become a KeyboardInterrupt; the run record
names the signal.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

HANDLED = (signal.SIGTERM, signal.SIGHUP)
received: str | None = None  # the name of the signal that ended this run, for the run record


def _interrupt(signum: int, frame: FrameType | None) -> None:
    global received
    first = received is None
    received = signal.Signals(signum).name
    if first:  # a second signal during teardown must not cut the cleanup short
        raise KeyboardInterrupt(f"{received} received")


def install() -> None:
    """Install the handlers where Python may (the main thread), leaving handlers others installed alone."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in HANDLED:
        if signal.getsignal(signum) in (signal.SIG_DFL, None):
            signal.signal(signum, _interrupt)
