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


def around(sample: Wrapped, before: Callable[[], T], after: Callable[[T], dict[str, Any]]) -> Wrapped:
    """`sample`, with the facts after(before()) names — `before` read just before it runs, `after` just
    after — as the sample's `observed.<name>`; a bare number becomes a Sample to carry them. A fact given as
    None is not stored."""

    def watched() -> Any:
        first = before()
        started, clock = time.time(), time.monotonic()
        got = sample()
        took = time.monotonic() - clock
        facts = {name: value for name, value in after(first).items() if value is not None}
        if not facts:
            return got
        if isinstance(got, Measurement | Sample):
            for name, value in facts.items():
                setattr(got.observed, name, value)
            return got
        if isinstance(got, numbers.Real) and not isinstance(got, bool):
            return Sample(value=float(got), started=started, duration_s=took, observed=Observed(**facts))
        return got  # the sampler names what is wrong with it

    return watched
