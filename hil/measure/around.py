"""Facts taken around each sample (the board's per-CPU load, the lab PC's load), stored with the sample."""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable
from typing import Any, TypeVar

from hil.verdict.measurement import Measurement
from hil.verdict.result import Sample

T = TypeVar("T")


Wrapped = Callable[[], Any]


def around(sample: Wrapped, key: str, before: Callable[[], T], after: Callable[[T], Any]) -> Wrapped:
    """`sample`, with after(before()) — `before` read just before it runs, `after` just after — in the
    sample's details[key]; a bare number becomes a Sample to carry it. `after` returning None stores nothing."""

    def watched() -> Any:
        first = before()
        started, clock = time.time(), time.monotonic()
        got = sample()
        took = time.monotonic() - clock
        detail = after(first)
        if detail is None:
            return got
        if isinstance(got, Measurement | Sample):
            got.details[key] = detail
            return got
        if isinstance(got, numbers.Real) and not isinstance(got, bool):
            return Sample(value=float(got), started=started, duration_s=took, details={key: detail})
        return got  # the sampler names what is wrong with it

    return watched
