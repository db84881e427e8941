"""Fixtures of the report layer's tests."""

from __future__ import annotations

import pytest

# Imported here, before any in-process run: pytester drops the modules an inner run imported, and
# numpy's C extension cannot be loaded a second time into the same process.
import hil.report.plots
import hil.report.testing
import hil.report.trend  # noqa: F401

# Inner runs load exactly the plugins under test. Autoload stays off there: labgrid's plugin keeps a
# process-global step logger that refuses a second in-process session, and hil.plugin is not needed.
PLUGIN_ARGS = (
    "-p", "hil_report", "-p", "html", "-p", "metadata",
    "-W", "ignore::pytest.PytestAssertRewriteWarning",  # "-p html": pytest-html is imported already
)  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    # pytester is enabled here and not with `pytest_plugins = ["pytester"]`: pytest refuses
    # `pytest_plugins` in a conftest below the rootdir when a run starts at the top (`pytest`).
    # A no-op once pytest.ini or the top-level conftest.py enables it.
    if not config.pluginmanager.has_plugin("pytester"):
        config.pluginmanager.import_plugin("pytester")


class InnerRun:
    """Runs pytest on files made with `pytester`, with the report plugin and pytest-html loaded."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.path = pytester.path

    def __call__(self, *args: str, subprocess: bool = False) -> pytest.RunResult:
        if subprocess:  # needed by xdist: its workers are processes anyway
            return self.pytester.runpytest_subprocess(*PLUGIN_ARGS, *args, timeout=60)
        return self.pytester.runpytest(*PLUGIN_ARGS, *args)


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> InnerRun:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makeini("[pytest]\njunit_family = xunit1\n")  # <properties> per testcase, as pytest.ini sets
    return InnerRun(pytester)
