"""Scripted sample sources and a fake clock: the sampler is tested without a board or real time."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import pytest

from hil.verdict.result import Sample


@dataclass
class FakeClock:
    """Monotonic and wall clock in one; time moves only when a scripted sample 'runs'."""

    now: float = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Scripted:
    """A sample source that replays `script` (numbers, Samples or exceptions), each taking `step_s`.

    Past the end of the script it repeats the last item, so adaptive runs never run dry.
    """

    clock: FakeClock
    script: list[object]
    step_s: float = 1.0
    calls: int = 0
    seen: list[object] = field(default_factory=list)

    def __call__(self) -> Sample | float:
        item = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        self.clock.now += self.step_s
        if isinstance(item, BaseException):
            raise item
        self.seen.append(item)
        return item  # type: ignore[return-value]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def scripted(clock: FakeClock):
    def make(script: Iterable[object], step_s: float = 1.0) -> Scripted:
        return Scripted(clock, list(script), step_s)

    return make
