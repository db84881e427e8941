"""The suite as a lab runs it on a real board: testcases through --boards examples/... --lg-env, gated, with
labgrid's --lg-log console logs, and results that say which board, boot loader, kernel and tool measured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_msc_read_case_runs_gated_on_the_bench_with_the_boards_facts_and_console_log(bench, tmp_path: Path):
    consoles = tmp_path / "consoles"
    command = [
        sys.executable, "-m", "pytest", str(REPO / "testcases"), "-p", "no:cacheprovider",
        "--boards", str(REPO / "examples" / "boards-rehearsal.yaml"),
        "--lg-env", str(REPO / "examples" / "rehearsal-env.yaml"),  # its ports under $LG_HIL_BENCH (the fixture)
        "--lg-log", str(consoles), "-k", "msc and read", "--samples", "2",
    ]  # fmt: skip
    run = subprocess.run(command, cwd=tmp_path, env=dict(os.environ), capture_output=True, text=True, timeout=1200)

    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    results = json.loads((tmp_path / "reports" / "results.json").read_text())["results"]
    assert results and {r["metric"] for r in results} == {"usb.msc.read"}
    for result in results:
        # two samples are too few for a confidence interval inside the band: MARGINAL passes the gate too
        assert result["verdict"] in ("PASS", "MARGINAL"), result
        assert result["band"]["low"] <= result["stats"]["median"] <= result["band"]["high"], result
        facts = result["facts"]
        assert facts["arch"] == "aarch64"
        assert "U-Boot" in facts["bootloader.rboard"] and facts["kernel"].endswith("arm64")
        assert facts["tool"]  # dd's version: MSC needs no program of hil's, so nothing was deployed for it
    logs = list(consoles.iterdir())
    assert logs and any("U-Boot" in log.read_text(errors="replace") for log in logs)
