"""After a missed verdict, where the rate went: the seeds' triage, run on the board that missed (docs/failures.md).

A test case that can be diagnosed hands `perf.check` a diagnosis (`diagnosis=`). When a metric of the check misses,
the diagnosis runs once, after the verdict and outside the samples, within `--diagnose-s` seconds (a step started
before the bound finishes; later ones are left out, saying so), and its lines go into each missed result's facts as
`diagnosis`. A suspected regression that is re-measured is diagnosed after its second attempt only. A diagnosis
that fails says so in its last line: it never changes a verdict.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

import pytest

from hil import confirmation
from hil.errors import HilError
from hil.lab.board import bound
from hil.report.summary import regressed
from hil.verdict.errors import MeasurementError
from hil.verdict.result import MetricResult, Verdict

log = logging.getLogger("hil")

Diagnosis = Callable[[float, list[str]], None]  # (deadline by time.monotonic(), lines): appends one line per finding
FACT = "diagnosis"
DEFAULT_S = 120.0


def add_options(group: pytest.OptionGroup) -> None:
    group.addoption(
        "--no-diagnose",
        action="store_true",
        help="do not diagnose a FAIL or REGRESSION (by default hil measures the layers beside a missed storage figure)",
    )
    group.addoption(
        "--diagnose-s",
        type=float,
        default=DEFAULT_S,
        metavar="SECONDS",
        help=f"time bound of one diagnosis (default {DEFAULT_S:g})",
    )


def missed(result: MetricResult) -> bool:
    """The figure missed: a FAIL outside its band, a REGRESSION (also beside another verdict), or UNSTABLE with
    the figure outside its band (a busy lab PC or a wide spread kept it from being a FAIL: where the rate went is
    still the question). A FAIL for corrupted data at a rate inside the band has no side: its rate did not miss."""
    outside = result.verdict in (Verdict.FAIL, Verdict.UNSTABLE) and result.side is not None
    return outside or result.verdict is Verdict.REGRESSION or regressed(result)


def after_verdict(item: pytest.Item, results: Sequence[MetricResult], diagnose: Diagnosis | None) -> None:
    """Diagnose the check once if any of its results missed, storing the lines in those results' facts."""
    suspected = item.stash.get(confirmation.SUSPECTED, [])
    targets = [result for result in results if missed(result) and not any(result is s for s in suspected)]
    if diagnose is None or not targets or item.config.getoption("no_diagnose"):
        return
    started = time.monotonic()
    lines = run(diagnose, item.config.getoption("diagnose_s"))
    lines.append(f"diagnosed in {time.monotonic() - started:.0f} s")
    for line in lines:
        log.warning("%s %s diagnosis: %s", targets[0].board, targets[0].metric, line)
    for result in targets:
        result.facts.notes[FACT] = list(lines)


def run(diagnose: Diagnosis, seconds: float) -> list[str]:
    """The diagnosis' lines; one that stopped on an error keeps what it found and names the error."""
    found: list[str] = []
    deadline = time.monotonic() + seconds
    try:
        with bound.bounded(seconds, f"--diagnose-s {seconds:g}"):
            diagnose(deadline, found)
    except (HilError, MeasurementError) as exc:
        found.append(f"the diagnosis stopped: {type(exc).__name__}: {exc}")
    return found
