"""Facts observed around each sample (the board's per-CPU load, the lab PC's load), stored with the sample."""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable
from typing import Any, TypeVar

from hil.verdict.measurement import Measurement, Observed
from hil.verdict.result import Sample

T = TypeVar("T")


Wrapped = Callable[[], Any]


def around(sample: Wrapped, fact: str, before: Callable[[], T], after: Callable[[T], Any]) -> Wrapped:
    """`sample`, with after(before()) — `before` read just before it runs, `after` just after — as the
    sample's `observed.<fact>`; a bare number becomes a Sample to carry it. `after` returning None stores nothing."""

    def watched() -> Any:
        first = before()
        started, clock = time.time(), time.monotonic()
        got = sample()
        took = time.monotonic() - clock
        detail = after(first)
        if detail is None:
            return got
        if isinstance(got, Measurement | Sample):
            setattr(got.observed, fact, detail)
            return got
        if isinstance(got, numbers.Real) and not isinstance(got, bool):
            return Sample(value=float(got), started=started, duration_s=took, observed=Observed(**{fact: detail}))
        return got  # the sampler names what is wrong with it

    return watched
