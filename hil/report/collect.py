"""Where a measured result meets the running pytest item: the stash, and the JUnit properties.

The measuring fixture calls `attach(request.node, result)` once per metric; the report plugin picks
the results up from the stash when pytest builds the test's report.
"""

from __future__ import annotations

import pytest

from hil.report.summary import band_text, fmt_pct
from hil.verdict.result import MetricResult

RESULTS = pytest.StashKey[list[MetricResult]]()
# How many of RESULTS already went into a report: a result attached during setup must not be
# reported again with the call.
_REPORTED = pytest.StashKey[int]()
# The (name, value) tuples this module put into item.user_properties, to re-prefix them.
_PROPERTIES = pytest.StashKey[list[tuple[str, object]]]()


def attach(item: pytest.Item, result: MetricResult) -> None:
    """Record `result` on the test `item`: stored, rendered and written as JUnit properties."""
    if not result.test_id:
        result.test_id = item.nodeid
    results = item.stash.setdefault(RESULTS, [])
    results.append(result)
    _set_properties(item, results)


def forget(item: pytest.Item) -> None:
    """Drop everything attached to `item` (an attempt that will not be reported: hil.confirmation)."""
    mine = item.stash.get(_PROPERTIES, [])
    item.user_properties[:] = [prop for prop in item.user_properties if not any(prop is m for m in mine)]
    item.stash[RESULTS] = []
    item.stash[_REPORTED] = 0
    item.stash[_PROPERTIES] = []


def results_of(item: pytest.Item) -> list[MetricResult]:
    return list(item.stash.get(RESULTS, []))


def take_unreported(item: pytest.Item) -> list[MetricResult]:
    """Results attached since the previous report of this item (setup, call, teardown)."""
    results = item.stash.get(RESULTS, [])
    done = item.stash.get(_REPORTED, 0)
    item.stash[_REPORTED] = len(results)
    return results[done:]


def junit_properties(result: MetricResult) -> list[tuple[str, str]]:
    """The figures a Jenkins JUnit consumer can read without opening results.json."""
    stats = result.stats
    props = [
        ("metric", result.key),
        ("board", result.board),
        ("value", f"{stats.median:.6g}" if stats else ""),
        ("unit", result.unit),
        ("band", band_text(result)),
        ("verdict", str(result.verdict)),
        ("cv_percent", f"{stats.cv * 100:.2f}" if stats else ""),
        ("samples", str(stats.n if stats else len(result.samples))),
        ("stop_reason", str(result.stop_reason)),
    ]
    if result.efficiency is not None:
        props.append(("efficiency_percent", fmt_pct(result.efficiency).rstrip("%")))
    if (speed := result.facts.link_seen) is not None:
        props.append(("link_speed", speed))
    props += baseline_properties(result)
    if result.reason:
        props.append(("reason", result.reason))
    return props


def baseline_properties(result: MetricResult) -> list[tuple[str, str]]:
    """The comparison with the baseline, when there was one: numbers as numbers (a pipeline may plot them)."""
    base = result.baseline
    if base is None:
        return []
    props = [
        ("baseline_median", f"{base.baseline_median:.6g}"),
        ("baseline_change_percent", f"{base.change * 100:.2f}"),
        ("baseline_p_value", f"{base.p_value:.3g}"),
    ]
    if base.run_p is not None:  # None: one baseline run, the run-to-run spread is unknown
        props.append(("baseline_run_p_value", f"{base.run_p:.3g}"))
    props += [
        ("baseline_runs", str(base.baseline_runs)),
        ("baseline_regression", "true" if base.regression else "false"),
    ]
    return props


def _set_properties(item: pytest.Item, results: list[MetricResult]) -> None:
    # One naming whatever the number of metrics: the test's own `metrics` (their keys) and `verdict` (the
    # worst), then each metric's properties under its key (`usb.msc.read[bs=1M].value`). Rewritten as a
    # metric arrives, so a pipeline reads the same names from a one-metric and a three-metric test.
    previous = item.stash.get(_PROPERTIES, [])
    kept = [prop for prop in item.user_properties if not any(prop is mine for mine in previous)]
    worst = max(results, key=lambda result: result.verdict.severity)
    mine: list[tuple[str, object]] = [
        ("metrics", " ".join(result.key for result in results)),
        ("verdict", str(worst.verdict)),
    ]
    mine += [
        (f"{result.key}.{name}", value)
        for result in results
        for name, value in junit_properties(result)
        if name != "metric"  # the prefix says it
    ]
    item.user_properties[:] = kept + mine  # in place: pytest hands this very list to the reports
    item.stash[_PROPERTIES] = mine
