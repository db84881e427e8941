"""Confirm a suspected regression: run the test again after a power cycle before calling it.

A regression found against the baseline may be this run's bad luck (a boot that trained DDR lower, a busy lab
PC): the test's first attempt is not reported, the pair is power-cycled and the test runs again;
`hil.verdict.baseline.confirm` calls a regression only when both attempts agree, and stores the first beside the
second. Each attempt runs with the item's parent as "next item", so pytest tears down only the item's own
(function-scoped) fixtures and the board stays set up; the teardown the real next item needs is done here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from hil.report import collect, live
from hil.verdict.result import MetricResult

log = logging.getLogger("hil")

# Set by `suspecter` on the first attempt: results whose comparison suspects a regression, and their pair.
SUSPECTED = pytest.StashKey[list[MetricResult]]()
SUSPECTED_PAIR = pytest.StashKey[Any]()
# Set here for the second attempt: the first attempt's results by metric key.
CONFIRMING = pytest.StashKey[dict[str, MetricResult]]()


def suspecter(item: pytest.Item, pair: Any) -> Callable[[MetricResult], None]:
    """What the first attempt calls with a result whose comparison suspects a regression."""

    def suspect(result: MetricResult) -> None:
        item.stash.setdefault(SUSPECTED, []).append(result)
        item.stash[SUSPECTED_PAIR] = pair

    return suspect


def enabled(config: pytest.Config) -> bool:
    return bool(config.getoption("baseline", False)) and not config.getoption("no_confirm", False)


def run_with_confirmation(item: pytest.Item, nextitem: pytest.Item | None) -> bool:
    """pytest_runtest_protocol for runs that compare with a baseline."""
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    keep = item.parent  # tear down the item's own fixtures only (see the module docstring)
    reports = runtestprotocol(item, nextitem=keep, log=False)  # type: ignore[arg-type]
    if suspected := item.stash.get(SUSPECTED, []):
        live.carry(item, reports)  # the first attempt's live lines still reach the log (under xdist)
        keys = ", ".join(result.key for result in suspected)
        log.warning("%s: suspected regression of %s: re-measuring after a power cycle", item.nodeid, keys)
        pair = item.stash.get(SUSPECTED_PAIR, None)
        if pair is not None:
            pair.mark_suspect(f"confirming a suspected regression of {keys}")
        item.stash[CONFIRMING] = {result.key: result for result in suspected}
        item.stash[SUSPECTED] = []
        collect.forget(item)
        item._initrequest()  # type: ignore[attr-defined]  # fresh fixtures for the second attempt, as pytest-rerunfailures does
        reports = runtestprotocol(item, nextitem=keep, log=False)  # type: ignore[arg-type]
    for report in reports:
        item.ihook.pytest_runtest_logreport(report=report)
    try:
        item.session._setupstate.teardown_exact(nextitem)  # type: ignore[attr-defined]
    except Exception as exc:  # a failing module/session teardown: pytest would report it on this item
        log.error("%s: teardown for the next test failed: %s", item.nodeid, exc)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True
