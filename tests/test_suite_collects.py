"""The performance suite collects on every inventory the repository ships, including those where no pair declares
some family's metrics (the case the remote inventory hit: the UVC conftests met pytest's empty parameter set)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import readme

REPO = Path(__file__).resolve().parents[1]
INVENTORIES = [
    "boards.yaml",
    "hil/vlab/remote-boards.yaml",
    "examples/boards-rk3399-gadget.yaml",
    "examples/boards-android.yaml",
]


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


# The seeds' full matrix per gadget test, per pair: bs x direction, buffer x direction, stream x transfer, ...
FULL_GADGET_MATRIX = {
    "test_msc.py::test_msc_throughput": 5 * 2,
    "test_msc_hdparm.py::test_msc_hdparm_read": 1,  # seed 001's hdparm -t: no parameter
    "test_msc_fs.py::test_msc_fs_throughput": 4 * 2,  # 4K, 64K, 102400 (seed 001), 1M
    "test_mtp.py::test_mtp_throughput": 3 * 2,
    "test_uvc.py::test_uvc_fps": 3 * 4 * 2 * 2,  # x streaming_interval x streaming_maxburst (some skip, saying why)
    "test_usb_net.py::test_usb_net_tcp": 3 * 2,
    "test_usb_net.py::test_usb_net_udp": 3 * 2,
    "test_usb_net_knee.py::test_usb_net_udp_knee": 2,  # ECM only, tx and rx
    "test_hid.py::test_hid_throughput": 2 * 2 * 2,
}


def _collected(tmp_path: Path, *args: str) -> list[str]:
    """The node ids `pytest ARGS --collect-only` lists, run from the repository."""
    reports = [f"--hil-reports={tmp_path}", f"--html={tmp_path / 'report.html'}", f"--junitxml={tmp_path}/junit.xml"]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "--collect-only", "-q", "-p", "no:cacheprovider", *reports],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return [line for line in result.stdout.splitlines() if "::" in line]


def test_the_rk3399_example_runs_every_gadget_case_of_the_full_matrix_on_both_pairs(tmp_path):
    ids = _collected(tmp_path, "testcases/usb_device", "--boards=examples/boards-rk3399-gadget.yaml", "--matrix=full")
    ids = [node.removeprefix("testcases/usb_device/") for node in ids]
    for pair in ("rk3399-evb-usb3", "rk3399-evb-usb2"):
        on_pair = [node for node in ids if re.search(rf"[\[-]{re.escape(pair)}[\]-]", node)]
        counts = {test: sum(1 for node in on_pair if node.startswith(test + "[")) for test in FULL_GADGET_MATRIX}
        assert counts == FULL_GADGET_MATRIX, pair


def test_readmes_real_board_command_runs_the_usb3_pairs_gadget_suite(tmp_path):
    (command,) = readme.commands_after("then run one pair", "Real boards")
    assert command[0] == ".venv/bin/pytest"
    ids = _collected(tmp_path, *command[1:], "--matrix=full")
    assert len(ids) == sum(FULL_GADGET_MATRIX.values())
    assert all("rk3399-evb-usb3" in node and node.startswith("testcases/usb_device/") for node in ids)
