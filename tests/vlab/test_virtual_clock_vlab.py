"""The virtual clock (boards.yaml `clock: virtual`, docs/virtual-lab.md): a figure measured inside the guest is the
same on every boot, so the release gate sees a guest path made 2% slower.

Each run is a pytest process of its own that boots its own virtual board. The slower path is the kernel booted with
slab debugging (`slub_debug=FZ`, a debug option a BSP build can ship by mistake): measured outside hil, it made a
64 MiB O_DIRECT read through dummy_hcd 2.3% slower (issue 43).
"""

from __future__ import annotations

import json
from pathlib import Path

from hil.report.compare import main as compare
from tests.vlab.test_release_gate_vlab import write_build
from tests.vlab.test_suite_run import run_pytest

MSC_READ = ["testcases/usb_device/test_msc.py", "-k", "vlab-hs and read and 1M", "--samples", "3"]
KEY = "usb.msc.read[bs=1M,clock=virtual]"


def _msc_read(out: Path, env: dict[str, str], extra: list[str] | None = None) -> dict:
    """One run (one boot) of the MSC 1M read on vlab-hs, stored in `out`'s results database; its result."""
    proc = run_pytest([*MSC_READ, *(extra or [])], env, out)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    (result,) = [r for r in json.loads((out / "results.json").read_text())["results"] if r["metric"] == "usb.msc.read"]
    assert result["facts"]["clock"] == "virtual" and result["params"] == {"bs": "1M", "clock": "virtual"}
    return result


def test_two_boots_on_the_virtual_clock_measure_one_figure(tmp_path, vlab_subprocess_env):
    first, second = (_msc_read(tmp_path / f"boot{n}", vlab_subprocess_env) for n in (1, 2))
    assert abs(first["stats"]["median"] / second["stats"]["median"] - 1) < 0.005, (first["stats"], second["stats"])


def test_a_guest_path_made_2_percent_slower_is_blocked_with_two_runs_against_two(
    tmp_path, vlab_image, vlab_subprocess_env
):
    reports = tmp_path / "reports"
    for index, (name, args) in enumerate([("ref", ""), ("ref", ""), ("rc", "slub_debug=FZ"), ("rc", "slub_debug=FZ")]):
        manifest = write_build(tmp_path / f"{name}-{index}", vlab_image, name, args)
        assert _msc_read(reports, vlab_subprocess_env, ["--build", str(manifest)])["verdict"] == "PASS"
    status = compare(["ref", "rc", "--hil-reports", str(reports), "--json", str(tmp_path / "gate.json")])
    gate = json.loads((tmp_path / "gate.json").read_text())
    rows = {row["key"]: row for row in gate["rows"]}
    assert status == 1 and gate["gate"] == "BLOCKED" and rows[KEY]["regression"], rows[KEY]
    assert -0.05 < rows[KEY]["change"] < -0.01, rows[KEY]  # slower by a few percent, not broken
