"""How many tests ran and how each ended: one outcome per test, ERROR included.

pytest counts reports, not tests (a test that fails and then errors in teardown is "1 failed, 1 error"), and
pytest-html leaves a test that ended in ERROR out of its "N tests took" line. Plain module: no pytest.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

# Worst first: a test that failed its gate and then errored in teardown is a failure (as the exit
# status ranks them), one that only errored is an error.
OUTCOMES = ("failed", "error", "xpassed", "xfailed", "passed", "skipped")
RAN = frozenset(OUTCOMES) - {"skipped"}  # a skipped test did not run; an ERROR in setup did try to
_SHOWN = ("passed", "failed", "error", "xfailed", "xpassed")  # in the order pytest's summary line uses


def phase_outcome(when: str, outcome: str, *, measurement_error: bool = False, xfail: bool = False) -> str | None:
    """The outcome one report gives its test, or None when it says nothing (a setup that passed); a failed setup
    or teardown, and a measurement error, are errors."""
    if outcome == "failed" and (when != "call" or measurement_error):
        return "error"
    if when != "call" and outcome == "passed":
        return None
    if xfail:
        return "xfailed" if outcome == "skipped" else "xpassed"
    return outcome if outcome in OUTCOMES else None  # "rerun" (pytest-rerunfailures): the next attempt decides


@dataclass
class OutcomeTally:
    """Per test (node id) its worst outcome so far."""

    outcomes: dict[str, str] = field(default_factory=dict)

    def add(self, nodeid: str, outcome: str | None) -> None:
        if outcome is None:
            return
        previous = self.outcomes.get(nodeid)
        if previous is None or OUTCOMES.index(outcome) < OUTCOMES.index(previous):
            self.outcomes[nodeid] = outcome

    def counts(self) -> dict[str, int]:
        """Tests per outcome (only outcomes that occurred) and "ran": every test that ran, ERROR included."""
        tally = Counter(self.outcomes.values())
        counts = {outcome: tally[outcome] for outcome in OUTCOMES if tally[outcome]}
        return {"ran": sum(tally[outcome] for outcome in RAN), **counts}


def counts_text(counts: dict[str, int]) -> str:
    """'3 tests ran: 1 passed, 1 failed, 1 error' (and the skipped ones, which did not run)."""
    ran = counts.get("ran", 0)
    parts = [f"{counts[outcome]} {outcome}" for outcome in _SHOWN if counts.get(outcome)]
    text = f"{ran} test{'s' if ran != 1 else ''} ran" + (f": {', '.join(parts)}" if parts else "")
    if counts.get("skipped"):
        text += f"; {counts['skipped']} skipped"
    return text
