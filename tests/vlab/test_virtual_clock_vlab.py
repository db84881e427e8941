"""The virtual clock (boards.yaml `clock: virtual`, docs/virtual-lab.md) and the release gate on it: a figure measured
inside the guest is the same on every boot, so the release gate sees a guest path made 2% slower with two runs
against two, a change the pair's band lets through.

Each run is a pytest process of its own that boots its own virtual board, given a build (the virtual lab image's
kernel and initramfs with kernel arguments of its own, as a release job gives the board each build). The slower
path is the kernel booted with slab debugging (a debug option a BSP build can ship by mistake): its red zones and
poisoning (`slub_debug=ZP`) made this read 1.79% slower in two runs (37.625 and 37.627 against 38.311 MB/s,
2026-11-29; `slub_debug=FZ` 3.5%, `F` 2.4%, `Z` 1.3%, `P` 1.2%).
"""

from __future__ import annotations

import json
from pathlib import Path

from hil.report.compare import main as compare
from tests.vlab.test_release_gate_vlab import write_build
from tests.vlab.test_suite_run import run_pytest

MSC_READ = ["testcases/usb_device/test_msc.py", "-k", "vlab-hs and read and 1M", "--samples", "3"]
KEY = "usb.msc.read[bs=1M,clock=virtual]"
SLOWER = "slub_debug=ZP"  # about 2% on this read (the module's docstring)


def _msc_read(out: Path, env: dict[str, str], build: str, manifest: Path) -> dict:
    """One run (one boot) of the MSC 1M read on vlab-hs with `build` on the board, stored in `out`'s results
    database; its result."""
    proc = run_pytest([*MSC_READ, "--build", str(manifest)], env, out)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    stored = json.loads((out / "results.json").read_text())
    assert stored["run"]["build"]["name"] == build and stored["run"]["inventory"]["sha256"]
    (result,) = [r for r in stored["results"] if r["metric"] == "usb.msc.read"]
    assert result["facts"]["clock"] == "virtual" and result["params"] == {"bs": "1M", "clock": "virtual"}
    assert result["facts"]["build"] == build and f"hil.build={build}" in result["facts"]["build.vboard"]
    # inside the pair's band, whichever build: only the comparison with the reference can catch the slower one
    assert result["verdict"] == "PASS", result["reason"]
    return result


def test_two_boots_measure_one_figure_and_a_guest_path_2_percent_slower_is_blocked_with_two_runs_against_two(
    tmp_path, vlab_image, vlab_subprocess_env
):
    reports = tmp_path / "reports"
    medians: dict[str, list[float]] = {"ref": [], "rc": []}
    for index, (name, args) in enumerate([("ref", ""), ("ref", ""), ("rc", SLOWER), ("rc", SLOWER)]):
        manifest = write_build(tmp_path / f"{name}-{index}", vlab_image, name, args)
        medians[name].append(_msc_read(reports, vlab_subprocess_env, name, manifest)["stats"]["median"])
    for name, (first, second) in medians.items():  # two boots of one build: one figure
        assert abs(first / second - 1) < 0.005, (name, medians)
    status = compare(["ref", "rc", "--hil-reports", str(reports), "--json", str(tmp_path / "gate.json")])
    gate = json.loads((tmp_path / "gate.json").read_text())
    rows = {row["key"]: row for row in gate["rows"]}
    assert status == 1 and gate["gate"] == "BLOCKED" and rows[KEY]["regression"], rows[KEY]
    assert rows[KEY]["gate"] == "BLOCKED" and rows[KEY]["band_verdict"] == "PASS", rows[KEY]
    assert -0.025 < rows[KEY]["change"] < -0.015, rows[KEY]  # about 2% slower, not broken
    assert rows[KEY]["smallest_drop"] < 0.02, rows[KEY]  # and the gate says it could catch that much
