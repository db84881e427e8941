"""Which USB Ethernet cases run: quick (README command 1) is TCP both ways and UDP tx, `--matrix full` adds
UDP rx; the example inventory's pairs collect the same cases."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CASE = "testcases/usb_host/test_usb_ethernet.py"


def _collected(tmp_path, *args):
    reports = [f"--hil-reports={tmp_path}", f"--html={tmp_path / 'r.html'}", f"--junitxml={tmp_path / 'j.xml'}"]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", CASE, "--collect-only", "-q", "-p", "no:cacheprovider", *reports, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return {line.split("::", 1)[1] for line in result.stdout.splitlines() if line.startswith(CASE + "::")}


@pytest.mark.parametrize(("matrix", "udp"), [("quick", {"tx"}), ("full", {"tx", "rx"})])
def test_the_vlab_pair_runs_tcp_both_ways_and_udp_per_matrix(tmp_path, matrix, udp):
    assert _collected(tmp_path, "--board=vlab-usbnet", f"--matrix={matrix}") == {
        "test_usb_ethernet_tcp[vlab-usbnet-tx]",
        "test_usb_ethernet_tcp[vlab-usbnet-rx]",
        *(f"test_usb_ethernet_udp[{direction}-vlab-usbnet]" for direction in udp),
    }


def test_the_example_pairs_collect(tmp_path):
    collected = _collected(tmp_path, "--boards=examples/boards-usb-ethernet.yaml")
    assert "test_usb_ethernet_tcp[rk3399-evb-usb3-ethernet-rx]" in collected and len(collected) == 6
