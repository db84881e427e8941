"""Hooks hil adds to pytest, for plugins and conftest files that want more than the built-in reports.

    # conftest.py of a lab: send every finished metric to a time-series database
    def pytest_hil_result(result, config):
        influx.write(result.board, result.metric, result.stats.median if result.stats else None)

Called once per finished metric result, in the process that writes the reports (the controller under
pytest-xdist), after the result is on disk: a sink that raises is reported and does not lose it.
"""

from __future__ import annotations

import pytest

from hil.verdict.result import MetricResult


@pytest.hookspec
def pytest_hil_result(result: MetricResult, config: pytest.Config) -> None:
    """A metric's result is final (verdict, statistics, samples, baseline comparison, facts)."""
