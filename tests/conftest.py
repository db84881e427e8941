"""hil's own tests: every run they make goes to a database of their own, never to a lab's (HIL_DB).

The tests are of two kinds, told apart by a marker this file sets at collection (no test file names it):

- `lab`: a test that boots a board (the virtual lab's QEMU board, the rehearsal bench's), runs a suite or a
  nested hil run on one, builds a wheel, prepares a Jenkins workspace, or starts a service (the coordinator
  lab, PostgreSQL, a browser). They assume one board at a time: run them in one process, never under -n.
- `slow`: not lab, but tens of seconds each: nested pytest or hil runs with QEMU-free inventories, C builds,
  512 MiB copies, concurrent database writers. `bash scripts/test.sh` runs them with the unit tests on both
  cores (-n 2); `--quick` leaves them out.
- `unit`: all others, CPU-light and independent: `bash scripts/test.sh --quick` runs them on both cores
  (pytest-xdist, -n 2) with `-m "not lab and not slow"`.

A test is `lab` by where it lives (LAB_PATHS) or by a fixture it uses (LAB_FIXTURES), `slow` by where it
lives (SLOW_PATHS, chosen from measured durations: docs/developing.md); a new test of that kind in a new place
belongs in one of these lists (tests/test_markers.py checks that what they name exists).
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
    # These measure the PC's CPU use outside hil's process tree: another pytest-xdist worker beside them is
    # "another job on the lab PC" (under -n 2 both failed, 2026-11-29): alone, as a lab test.
    "measure/test_pcload.py",
    "test_cpu_cost.py",
    # iperf3 over the PC's loopback, its report's span checked against the run's: under -n 2 beside the slow
    # tests on a loaded PC "a report of 3.08 s for a run of 1 s" was an ERROR (2026-11-29): alone, as a lab test.
    "test_interface_errors.py",
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

# Not lab, but each test tens of seconds (durations of a run under -n 2: docs/developing.md).
SLOW_PATHS: tuple[str, ...] = (
    "inventory/test_inventory_before_boards.py",  # nested hil runs on the virtual lab's inventory, one boots QEMU
    "inventory/test_lg_env.py",  # nested pytest runs
    "lab/test_file_copies.py",  # 512 MiB copies with the page cache dropped
    "lab/test_programs.py",  # builds hil's C programs
    "db/test_concurrency.py",  # four concurrent writers
    # Nested pytest or hil runs (a second or more each; under -n 2 on a loaded PC, 5-150 s):
    "test_confirmation.py",
    "test_cli.py",
    "test_data_integrity.py",
    "test_disks_together.py",
    "report/test_plugin.py",
    "report/test_release_gate_option.py",
    "report/test_exit_codes.py",
    "report/test_unwritable_reports.py",
    "report/test_counts.py",
    "inventory/test_inventory_plugin.py",
    "measure/test_pcie_examples.py",
    # Nested pytest runs too, found by what they start (runpytest_subprocess, subprocess): the run of --quick
    # at 05:26 was still in them at 86% of its tests when it had run 13 minutes on the loaded machine.
    "test_pair_selection.py",
    "test_parametrization.py",
    "test_rootdir.py",
    "test_scheduling.py",
    "test_live_progress.py",
    "test_unstable_regression.py",
    "test_suite_collects.py",
    "test_usb_ethernet_matrix.py",
    "test_labrepo.py",
)

# Parametrized fixtures whose given value starts a service (tests/db: `db_url` is SQLite or PostgreSQL).
LAB_PARAMS: dict[str, frozenset[object]] = {"db_url": frozenset({"postgresql"})}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "lab: boots a board, runs a suite, builds a wheel or starts a service (not in --quick)"
    )
    config.addinivalue_line(
        "markers", "slow: no board, but tens of seconds (in the full run under -n 2, not in --quick)"
    )
    config.addinivalue_line("markers", "unit: needs no board and no service; runs under -n 2 (--quick)")


def _where(item: pytest.Item) -> str | None:
    """The test's file relative to tests/, or None when it is not under tests/ (a nested run's own files)."""
    try:
        return Path(str(item.path)).resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return None


def _under(where: str, paths: tuple[str, ...]) -> bool:
    return any(where == p or (p.endswith("/") and where.startswith(p)) for p in paths)


def is_lab(item: pytest.Item) -> bool:
    """Whether a test is a lab test (see this module's docstring)."""
    where = _where(item)
    if where is None:
        return False
    if _under(where, LAB_PATHS):
        return True
    if LAB_FIXTURES.intersection(getattr(item, "fixturenames", ())):
        return True
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        return any(callspec.params.get(name) in values for name, values in LAB_PARAMS.items())
    return False


def kind(item: pytest.Item) -> str:
    """`lab`, `slow` or `unit` (see this module's docstring)."""
    if is_lab(item):
        return "lab"
    where = _where(item)
    return "slow" if where is not None and _under(where, SLOW_PATHS) else "unit"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(getattr(pytest.mark, kind(item)))
