"""PCIe BAR load/store on the virtual lab (seed 002 §5): the suite's case measures QEMU's ivshmem-plain BAR2
through sysfs resource2 and its write-combining resource2_wc with hil's resource_mmap_test, deployed by hil,
and every load reads back what the stores wrote (the program's checksum, checked by the parser); the DMA and
interrupt cases skip with the reason."""

from __future__ import annotations

import json

from tests.vlab.test_suite_run import run_pytest


def test_the_emulated_bar_is_measured_and_gated(tmp_path, vlab_subprocess_env):
    out = tmp_path / "reports"
    proc = run_pytest(["testcases/pcie", "--samples", "3", "-rs"], vlab_subprocess_env, out)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "SKIPPED [4] testcases/pcie/test_pcie_dma.py" in proc.stdout
    assert "SKIPPED [2] testcases/pcie/test_pcie_irq.py" in proc.stdout
    stored = json.loads((out / "results.json").read_text())["results"]
    results = {(result["metric"], result["params"]["mapping"]): result for result in stored}
    assert set(results) == {(metric, m) for metric in ("pcie.bar.store", "pcie.bar.load") for m in ("device", "wc")}
    for (_, mapping), result in results.items():
        assert result["board"] == "vlab-bar" and result["verdict"] in ("PASS", "MARGINAL"), result["reason"]
        assert result["facts"]["link_speed"] == "emulated: not checked"
        assert result["facts"]["bar"].endswith("/resource2" + ("_wc" if mapping == "wc" else ""))
    raw = results["pcie.bar.store", "device"]["samples"][0]["raw"]
    assert "bytes=4194304 width=32 loops=16 " in raw and "checksum=" in raw
