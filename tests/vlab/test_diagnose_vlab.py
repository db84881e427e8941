"""The diagnosis on the virtual lab: the host's block layer slowed on purpose (tests/vlab/small_requests_fault.py
keeps max_sectors_kb at 32 on the USB disk), the 1M read FAILs its band, and the diagnosis that runs after the
verdict names the block layer, with the layers beside it measured and shown in results.json and the report."""

from __future__ import annotations

import json

from tests.vlab.small_requests_fault import MAX_SECTORS_KB
from tests.vlab.test_suite_run import run_pytest


def test_a_capped_block_queue_is_named_by_the_diagnosis_of_the_failed_read(tmp_path, vlab_subprocess_env):
    out = tmp_path / "reports"
    selection = ["testcases/usb_device/test_msc.py", "-k", "vlab-ss and read and 1M", "--matrix", "full"]
    selection += ["--board", "vlab-ss", "--samples", "2", "-p", "tests.vlab.small_requests_fault"]
    proc = run_pytest(selection, vlab_subprocess_env, out)
    assert proc.returncode == 1, proc.stdout[-4000:] + proc.stderr[-2000:]
    results = {result["metric"]: result for result in json.loads((out / "results.json").read_text())["results"]}
    result = results["usb.msc.read"]
    # FAIL, or UNSTABLE below the band when other jobs load the lab PC (pc_load_max): diagnosed either way.
    assert result["verdict"] in ("FAIL", "UNSTABLE") and result["side"] == "low", result["reason"]
    lines = result["facts"]["diagnosis"]
    capped = [line for line in lines if "max_sectors_kb caps the requests" in line]
    assert capped, lines
    assert f"requests averaged {MAX_SECTORS_KB} KiB for 1024 KiB blocks (max_sectors_kb {MAX_SECTORS_KB}" in capped[0]
    assert capped[0].endswith("the loss is in the block layer")
    assert any(line.startswith("the raw device sd") and " reads " in line for line in lines), lines
    assert any(line.startswith("the board's storage (/tmp on device) reads ") for line in lines), lines
    assert any(line.startswith("CPUs during the transfer: cpu0 busy ") for line in lines), lines
    assert any(line.startswith("operating point of host: no CPU offline") for line in lines), lines
    assert lines[-1].startswith("diagnosed in ")
    assert "diagnosis" in (out / "report.html").read_text()
