"""Live per-sample lines (`pytest -v`) in the output a pipeline logs, with or without pytest-xdist.

In one process a line goes to the terminal reporter at once, with output capture suspended (printed to the
test's stdout it would land in the captured output, not in the log). A pytest-xdist worker has no terminal the
pipeline sees, and xdist relays no event a plugin can add, but it ships each test report with every attribute:
so a worker keeps its lines on the item, they travel with the report of the phase that took them, and the
controller writes them, tagged with the worker (`[gw0] vlab-hs sample 3: ...`), before that test's outcome.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

import pytest

REPORT_ATTR = "hil_live"  # list of lines on a worker's report
_LINES = pytest.StashKey[list[str]]()
INDENT = "    "


def on_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def emit(item: pytest.Item, line: str) -> None:
    """One live line: to the terminal now, or (on a worker) kept for this phase's report."""
    if on_worker(item.config):
        item.stash.setdefault(_LINES, []).append(line)
    elif item.config.getoption("verbose") > 0:
        write_now(item.config, f"{INDENT}{line}")


def take(item: pytest.Item) -> list[str]:
    """The lines kept since the previous report of this item (worker side)."""
    lines = item.stash.get(_LINES, [])
    item.stash[_LINES] = []
    return lines


def carry(item: pytest.Item, reports: Iterable[Any]) -> None:
    """Keep the lines of reports that will not be logged (a first attempt, hil.confirmation) for the next."""
    earlier = [line for report in reports for line in getattr(report, REPORT_ATTR, None) or ()]
    item.stash[_LINES] = [*earlier, *item.stash.get(_LINES, [])]


def relay(config: pytest.Config, report: pytest.TestReport) -> None:
    """Controller side: write the lines a worker's report carries (with -v), before its outcome is shown."""
    lines = getattr(report, REPORT_ATTR, None)
    if not lines or config.getoption("verbose") <= 0:
        return
    worker = getattr(report, "worker_id", None)
    tag = f"[{worker}] " if worker else ""
    for line in lines:
        write_now(config, f"{INDENT}{tag}{line}")


def write_now(config: pytest.Config, line: str) -> None:
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None:
        with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
            reporter.write_line(line)
