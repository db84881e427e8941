"""The board's operating point on the virtual board, in a whole pytest run: a core taken offline during a
counted sample makes the figure UNSTABLE naming the core (hil.verdict.final, rule 1); the next check, on the
board as declared, passes with its operating point recorded as held; a core offline for a whole check that misses
its band (out of reach on purpose) is named by the diagnosis, the operating point being the layer that moved."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from .test_faults import BOARDS as LOOSE  # vlab-hs, usb.msc.read banded loosely: what moved decides, not the rate
from .test_suite_run import run_pytest

# The third check's band is out of any reach: it misses, and its diagnosis runs.
BOARDS = LOOSE.replace("max_cv: 60%}", "max_cv: 60%, params: {point=slow: {min: 100000, max: 1000000}}}")
assert BOARDS != LOOSE

TESTS = """
import pytest
from hil.diagnose.storage import StorageDiagnosis
from hil.lab.usb_gadget.gadget import MassStorage
from hil.measure import dd
from hil.lab.usb_gadget.on_link import gadget_on

CPU1 = "/sys/devices/system/cpu/cpu1/online"


@pytest.mark.hil_metrics("usb.msc.read")
def test_1_a_core_goes_offline_mid_run(pair, perf):
    taken = []

    def sample():
        if len(taken) == 2:  # the warm-up and one counted sample are in: the second loses a core
            pair.device.run(f"echo 0 > {CPU1}")
        taken.append(dd.read(pair.host, disk, block_size="1M", total_mb=16))
        return taken[-1]

    with gadget_on(pair, MassStorage(size_mb=32)) as gadget:
        disk = gadget.block_device()
        try:
            perf.check("usb.msc.read", bs="1M", point="offline", sample=sample)
        finally:
            pair.device.run(f"echo 1 > {CPU1}")


@pytest.mark.hil_metrics("usb.msc.read")
def test_3_a_core_offline_throughout_is_named_by_the_diagnosis(pair, perf):
    pair.device.run(f"echo 0 > {CPU1}")
    try:
        with gadget_on(pair, MassStorage(size_mb=32)) as gadget:
            disk = gadget.block_device()
            perf.check(
                "usb.msc.read",
                bs="1M",
                point="slow",
                sample=lambda: dd.read(pair.host, disk, block_size="1M", total_mb=16),
                diagnosis=StorageDiagnosis(pair.host, disk, "read", "1M", 16),
            )
    finally:
        pair.device.run(f"echo 1 > {CPU1}")


@pytest.mark.hil_metrics("usb.msc.read")
def test_2_the_board_as_declared(pair, perf):
    with gadget_on(pair, MassStorage(size_mb=32)) as gadget:
        disk = gadget.block_device()
        perf.check(
            "usb.msc.read", bs="1M", point="held", sample=lambda: dd.read(pair.host, disk, block_size="1M", total_mb=16)
        )
"""


def test_a_core_taken_offline_mid_run_is_unstable_naming_it(tmp_path: Path, vlab_subprocess_env):
    (tmp_path / "boards.yaml").write_text(BOARDS)
    (tmp_path / "test_point.py").write_text(textwrap.dedent(TESTS))
    (tmp_path / "pytest.ini").write_text("[pytest]\njunit_family = xunit1\n")
    out = tmp_path / "reports"
    proc = run_pytest(["--samples", "4", "-rA", "test_point.py"], vlab_subprocess_env, out, cwd=tmp_path)
    log = proc.stdout[-8000:] + proc.stderr[-2000:]
    assert proc.returncode == 1, log  # a gate failed: the first check is UNSTABLE

    results = json.loads((out / "results.json").read_text())["results"]
    moved, held, slow = ({r["params"]["point"]: r for r in results}[point] for point in ("offline", "held", "slow"))
    assert moved["verdict"] == "UNSTABLE", log
    assert "the board left its operating point (sample 2: cpu1 went offline)" in moved["reason"], moved["reason"]
    assert moved["samples"][1]["observed"]["operating_point"]["moved"] == ["cpu1 went offline"]
    assert held["verdict"] in ("PASS", "MARGINAL"), log  # MARGINAL passes too: a noisy machine
    assert held["facts"]["operating_point"].endswith("held over 4 samples"), held["facts"]
    # Offline from before the first sample: nothing moved within a sample, so the band decides; the diagnosis
    # names the core (host and device are one virtual board) beside the layers it measured.
    assert slow["verdict"] in ("FAIL", "UNSTABLE") and slow["side"] == "low", slow["reason"]
    lines = slow["facts"]["diagnosis"]
    assert any(line.startswith("operating point of host: cpu1 offline") for line in lines), lines
    assert any(line.startswith("the raw device sd") and " reads " in line for line in lines), lines
