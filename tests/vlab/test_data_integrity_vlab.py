"""Data integrity on the virtual lab: a mass-storage gadget whose backing file changes under the host
(tests/vlab/backing_file_fault.py: the board overwrites 8 bytes of it while the test runs) moves data at its
usual rate, and the metric is a FAIL because what the host wrote is not what the board holds."""

from __future__ import annotations

import json

from tests.vlab.test_suite_run import run_pytest


def test_a_gadget_that_corrupts_the_data_fails_its_throughput_whatever_the_rate(tmp_path, vlab_subprocess_env):
    out = tmp_path / "reports"
    selection = ["testcases/usb_device/test_msc.py", "-k", "vlab-ss and write and 1M", "--samples", "3"]
    proc = run_pytest([*selection, "-p", "tests.vlab.backing_file_fault"], vlab_subprocess_env, out)
    assert proc.returncode == 1, proc.stdout[-4000:] + proc.stderr[-2000:]
    results = {result["metric"]: result for result in json.loads((out / "results.json").read_text())["results"]}
    assert set(results) == {"usb.msc.write", "usb.msc.write.cpu_busiest"}  # the rate and its CPU cost
    result = results["usb.msc.write"]
    assert result["verdict"] == "FAIL", result["reason"]
    assert len(result["samples"]) == 3 and all(sample["value"] > 0 for sample in result["samples"])
    assert result["reason"].startswith("data corrupted: "), result["reason"]
    assert "/tmp/hil-msc-lun0.img does not hold the 16 MiB" in result["reason"]
    assert "corrupted on the way in" in result["reason"]
    assert result["facts"]["integrity"].startswith("CORRUPTED: ")
    assert "data corrupted" in proc.stdout
