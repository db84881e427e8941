"""How long a board command may take while a sample runs: derived from how long samples normally take.

A hung board should cost seconds, not the command's generous own limit (dd's is minutes). While a sample
runs, `Perf` sets a bound from the warm-up's duration; `Role.run` waits at most until it and names it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class CommandBound:
    deadline: float  # time.monotonic() by which the sample must be done
    seconds: float
    why: str  # "5x the warm-up's 2.1 s, at least 20 s"


_BOUND: ContextVar[CommandBound | None] = ContextVar("hil_command_bound", default=None)
MINIMUM_S = 1.0  # a command always gets this long, even past the deadline: its error must be seen


@contextmanager
def bounded(seconds: float, why: str) -> Iterator[CommandBound]:
    bound = CommandBound(time.monotonic() + seconds, seconds, why)
    token = _BOUND.set(bound)
    try:
        yield bound
    finally:
        _BOUND.reset(token)


@contextmanager
def at_least(seconds: float, why: str) -> Iterator[None]:
    """Within a sample's bound, give the commands inside at least `seconds` from now: a step whose own wait is
    legitimate (a device's runtime suspend, up to its script's limit) then ends in its own named error, not in
    a hung board's timeout and a power cycle."""
    current = _BOUND.get()
    if current is None or current.deadline - time.monotonic() >= seconds:
        yield
        return
    with bounded(seconds, f"{why} ({current.why}, extended)"):
        yield


def limit(requested_s: float) -> tuple[float, str]:
    """The timeout a command gets, and how to describe it in a timeout message."""
    bound = _BOUND.get()
    if bound is not None:
        remaining = max(MINIMUM_S, bound.deadline - time.monotonic())
        if remaining < requested_s:
            return remaining, f"sample bound {bound.seconds:.0f} s: {bound.why}"
    return requested_s, f"command limit {requested_s:.0f} s"
