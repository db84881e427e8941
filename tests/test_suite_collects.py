"""The performance suite collects on every inventory the repository ships, including those where no pair declares
some family's metrics (the case the remote inventory hit: the UVC conftests met pytest's empty parameter set)."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
INVENTORIES = ["boards.yaml", "hil/vlab/remote-boards.yaml", "examples/boards-android.yaml"]


@pytest.mark.parametrize("inventory", INVENTORIES)
@pytest.mark.parametrize("matrix", ["quick", "full"])
def test_the_suite_collects_without_an_internal_error(inventory, matrix, tmp_path):
    reports = [
        f"--hil-reports={tmp_path}",
        f"--html={tmp_path / 'report.html'}",
        f"--junitxml={tmp_path / 'junit.xml'}",
    ]
    command = [sys.executable, "-m", "pytest", "testcases", f"--boards={inventory}", f"--matrix={matrix}"]
    result = subprocess.run(
        [*command, "--collect-only", "-q", "-p", "no:cacheprovider", *reports],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "INTERNALERROR" not in result.stdout
