"""hil's own tests: every run they make goes to a database of their own, never to a lab's (HIL_DB).

The tests are of two kinds, told apart by a marker this file sets at collection (no test file names it):

- `lab`: a test that boots a board (the virtual lab's QEMU board, the rehearsal bench's), runs a suite or a
  nested hil run on one, builds a wheel, prepares a Jenkins workspace, or starts a service (the coordinator
  lab, PostgreSQL, a browser). They assume one board at a time: run them in one process, never under -n.
- `unit`: all others, CPU-light and independent: `bash scripts/test.sh --quick` runs them on both cores
  (pytest-xdist, -n 2) with `-m "not lab"`.

A test is `lab` by where it lives (LAB_PATHS) or by a fixture it uses (LAB_FIXTURES); a new test of that
kind in a new place belongs in one of these lists (tests/test_markers.py checks that what they name exists).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.pop("HIL_DB", None)

TESTS = Path(__file__).resolve().parent

# Folders and files (relative to tests/) whose every test is a lab test.
LAB_PATHS: tuple[str, ...] = (
    "vlab/",  # the virtual board under QEMU (TCG), and nested suite runs on it
    "bench/",  # the rehearsal bench: QEMU boards behind U-Boot, TFTP, a power switch
    "coordinator/",  # a labgrid coordinator and exporter with two places, nested runs on them
    "distribution/test_wheel.py",  # builds hil's wheel and installs it in a new venv
    "dashboard/test_browser.py",  # chromium on `hil serve`
    "pipeline/test_jenkinsfile.py",  # a Jenkins workspace set up and run as Jenkins would
)

# Fixtures that boot a board or start a service, wherever the test lives.
LAB_FIXTURES: frozenset[str] = frozenset(
    {
        "vlab_image",
        "vlab_env",
        "vboard",
        "vboard_with_programs",
        "vlab_subprocess_env",
        "bench",
        "rehearsal_env",
        "pg_cluster",
        "pg_url",
    }
)

# Parametrized fixtures whose given value starts a service (tests/db: `db_url` is SQLite or PostgreSQL).
LAB_PARAMS: dict[str, frozenset[object]] = {"db_url": frozenset({"postgresql"})}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "lab: boots a board, runs a suite, builds a wheel or starts a service (not in --quick)"
    )
    config.addinivalue_line("markers", "unit: needs no board and no service; runs under -n 2 (--quick)")


def is_lab(item: pytest.Item) -> bool:
    """Whether a test is a lab test (see this module's docstring)."""
    try:
        where = Path(str(item.path)).resolve().relative_to(TESTS).as_posix()
    except ValueError:  # not under tests/ (a nested run's own files)
        return False
    if any(where == p or (p.endswith("/") and where.startswith(p)) for p in LAB_PATHS):
        return True
    if LAB_FIXTURES.intersection(getattr(item, "fixturenames", ())):
        return True
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        return any(callspec.params.get(name) in values for name, values in LAB_PARAMS.items())
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.lab if is_lab(item) else pytest.mark.unit)
