"""Whole runs of pytest on the virtual lab, as a user or Jenkins runs them: the suite's reports, and a
run in which the board hangs and the link trains at the wrong speed.

Each run is a separate pytest process that boots its own virtual board.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

from hil.db.engine import open_db
from hil.db.schema import BaselineRow
from hil.vlab import ENV_FILE

REPO = Path(__file__).resolve().parents[2]


def run_pytest(args: list[str], env: dict[str, str], out: Path, *, cwd: Path = REPO) -> subprocess.CompletedProcess:
    reports = [f"--hil-reports={out}", f"--html={out}/report.html", f"--junitxml={out}/junit.xml"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *reports, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )


def junit_cases(path: Path) -> dict[str, ET.Element]:
    return {case.get("name"): case for case in ET.parse(path).getroot().iter("testcase")}


def test_suite_measures_both_pairs_and_writes_html_junit_and_json(tmp_path, vlab_subprocess_env):
    out = tmp_path / "reports"
    # The quick matrix: it reads on vlab-hs and writes on vlab-ss (boards.yaml's quick_only), both pairs and both
    # directions in two cases (--matrix full measured each direction on each pair: 200 s of CI for the same checks).
    selection = ["testcases/usb_device/test_msc.py", "-k", "1M", "--samples", "3"]
    selection += ["--board", "vlab-hs", "--board", "vlab-ss"]
    proc = run_pytest(selection, vlab_subprocess_env, out)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]

    results = json.loads((out / "results.json").read_text())["results"]
    measured = {(r["board"], r["metric"]): r for r in results}
    # Each rate with its CPU cost (boards.yaml gives usb.msc.*.cpu_busiest a band on both pairs), same runs.
    rates = {("vlab-hs", "usb.msc.read"), ("vlab-ss", "usb.msc.write")}
    assert set(measured) == rates | {(board, f"{metric}.cpu_busiest") for board, metric in rates}
    for board, metric in rates:
        cost = measured[(board, f"{metric}.cpu_busiest")]
        assert cost["verdict"] == "PASS" and cost["unit"] == "%" and len(cost["samples"]) == 3, cost["reason"]
        assert all(0 < s["value"] <= 100 for s in cost["samples"])
    for board, metric in rates:
        result = measured[(board, metric)]
        assert result["verdict"] == "PASS"
        assert result["stop_reason"] == "fixed_count"
        assert len(result["samples"]) == 3 and len(result["warmup"]) == 1
        assert all(s["value"] > 0 and "copied" in s["raw"] for s in result["samples"]), "dd's own output is kept"
        speed = "480 Mb/s" if board == "vlab-hs" else "5000 Mb/s"
        assert result["facts"]["link_speed"].startswith(speed)
        assert result["facts"]["kernel"]
        # both gadget pairs measure on the virtual clock: the key says so, and figures of two clocks never meet
        assert result["params"] == {"bs": "1M", "clock": "virtual"} and result["facts"]["clock"] == "virtual"
        # seed 004: the device role's per-CPU load around every sample, summarised in the facts
        assert all("cpu0" in s["observed"]["cpu_load"]["cpus"] for s in result["samples"])
        assert "cpu0 usr" in result["facts"]["cpu_load"]

    cases = junit_cases(out / "junit.xml")
    assert len(cases) == 2
    for case in cases.values():
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        rate, cost = props["metrics"].split()  # the rate and its CPU cost; properties are named by each key
        assert cost.startswith(rate.split("[")[0] + ".cpu_busiest[")
        assert {f"{key}.{name}" for key in (rate, cost) for name in ("value", "unit", "band", "verdict")} <= set(props)
        assert props[f"{rate}.unit"] == "MB/s" and props[f"{cost}.unit"] == "%"
        assert props[f"{rate}.verdict"] == props[f"{cost}.verdict"] == props["verdict"] == "PASS"

    html = (out / "report.html").read_text()
    assert "usb.msc.read[bs=1M,clock=virtual]" in html and "usb.msc.write[bs=1M,clock=virtual]" in html
    assert "data:image/png;base64," in html


BOARDS = """
pairs:
  vlab-hs:
    env: {env}
    vlab: true
    roles: {{host: {{target: vboard}}, device: {{target: vboard}}}}
    link: {{type: usb, speed: high, udc: dummy_udc.0, driver: {{module: dummy_hcd, params: {{is_super_speed: false}}}},
            emulated: true}}
    metrics:
      usb.msc.read: {{unit: MB/s, min: 1, max: 100000, max_cv: 50%}}
  vlab-mislinked:
    env: {env}
    vlab: true
    roles: {{host: {{target: vboard}}, device: {{target: vboard}}}}
    # specified for super speed, but dummy_hcd is loaded for high speed: the link trains at 480 Mb/s
    link: {{type: usb, speed: super, udc: dummy_udc.0, driver: {{module: dummy_hcd, params: {{is_super_speed: false}}}},
            emulated: true}}
    metrics:
      usb.msc.write: {{unit: MB/s, min: 1, max: 100000, max_cv: 50%}}
"""

TESTS = """
import pytest

from hil.lab.usb_gadget.gadget import MassStorage
from hil.measure import dd
from hil.lab.usb_gadget.on_link import gadget_on


def read_throughput(pair, perf):
    with gadget_on(pair, MassStorage(size_mb=64)) as gadget:
        disk = gadget.block_device()
        perf.check("usb.msc.read", bs="1M",
                   sample=lambda: dd.read(pair.host, disk, block_size="1M", total_mb=32))


@pytest.mark.hil_metrics("usb.msc.read")
def test_1_board_hangs_while_sampling(pair, perf):
    taken = []

    def sample_then_hang():
        if len(taken) == 3:  # warm-up and two counted samples are in: now the board hangs
            pair.host.target.get_driver("VlabQEMUDriver").pause()
        taken.append(dd.read(pair.host, disk, block_size="1M", total_mb=16, timeout=20))
        return taken[-1]

    with gadget_on(pair, MassStorage(size_mb=32)) as gadget:
        disk = gadget.block_device()
        perf.check("usb.msc.read", bs="1M", fault="hang", sample=sample_then_hang)  # a key of its own


@pytest.mark.hil_metrics("usb.msc.read")
def test_2_next_test_measures_after_a_power_cycle(pair, perf):
    read_throughput(pair, perf)


@pytest.mark.hil_metrics("usb.msc.write")
def test_3_link_at_the_wrong_speed(pair, perf):
    with gadget_on(pair, MassStorage(size_mb=16)):
        pytest.fail("the gadget context must refuse a link below its specified speed")
"""


def test_hung_board_and_wrong_link_speed_are_errors_and_the_run_goes_on(tmp_path, vlab_subprocess_env):
    (tmp_path / "boards.yaml").write_text(BOARDS.format(env=ENV_FILE))
    (tmp_path / "test_recovery.py").write_text(textwrap.dedent(TESTS))
    (tmp_path / "pytest.ini").write_text("[pytest]\njunit_family = xunit1\n")
    out = tmp_path / "reports"
    proc = run_pytest(["--samples", "3", "-rA", "test_recovery.py"], vlab_subprocess_env, out, cwd=tmp_path)
    log = proc.stdout[-8000:] + proc.stderr[-2000:]
    assert proc.returncode == 6, log  # errors only, no gate failed: a lab fault (docs/failures.md, exit codes)

    cases = junit_cases(out / "junit.xml")
    hang = cases["test_1_board_hangs_while_sampling[vlab-hs]"]
    assert hang.find("error") is not None, log
    assert "BoardTimeout" in hang.find("error").get("message"), log
    assert cases["test_2_next_test_measures_after_a_power_cycle[vlab-hs]"].find("error") is None, log
    assert cases["test_2_next_test_measures_after_a_power_cycle[vlab-hs]"].find("failure") is None, log
    mislinked = cases["test_3_link_at_the_wrong_speed[vlab-mislinked]"].find("error")
    assert mislinked is not None, log
    assert "came up at 480 Mb/s (high speed), expected 5000 Mb/s (super speed)" in mislinked.get("message"), log

    results = json.loads((out / "results.json").read_text())["results"]
    assert [(r["board"], r["metric"], r["verdict"]) for r in results] == [
        ("vlab-hs", "usb.msc.read", "ERROR"),
        ("vlab-hs", "usb.msc.read", "PASS"),
    ]
    hung = results[0]
    assert hung["stop_reason"] == "error" and "BoardTimeout" in hung["reason"]
    assert len(hung["warmup"]) == 1 and len(hung["samples"]) == 2, "what was measured before the hang is kept"


def test_baseline_is_stored_then_a_slower_run_is_a_regression(tmp_path, vlab_subprocess_env):
    url = f"sqlite:///{tmp_path / 'hil.db'}"
    # The suite's test on a pair whose band is loose about spread: this is about the baseline, not the CV.
    loose = tmp_path / "boards.yaml"
    loose.write_text(
        BOARDS.format(env=ENV_FILE)
        .split("  vlab-mislinked:")[0]
        .replace("max_cv: 50%", "max_cv: 80%")
        .replace("    metrics:", "    settings: {msc.backing_mb: 160, msc.transfer_mb: 128}\n    metrics:", 1)
    )
    select = [
        "testcases/usb_device/test_msc.py",
        "-k",
        "vlab-hs and read and 1M",
        "--samples",
        "5",
        f"--boards={loose}",
    ]
    first = run_pytest([*select, "--update-baseline", f"--hil-db={url}"], vlab_subprocess_env, tmp_path / "r1")
    assert first.returncode == 0, first.stdout[-6000:]
    engine, table = open_db(url), BaselineRow.__table__
    with engine.connect() as connection:
        (run,) = connection.execute(table.select())
    assert run.params_key == "usb.msc.read[bs=1M]" and len(run.samples) == 5

    # The same board measured against an earlier release that was 3x faster (more than a busy machine's
    # run-to-run swing): the real samples of this run must come out as a regression, confirmed by a
    # re-measure after a power cycle.
    with engine.begin() as connection:
        connection.execute(table.update().values(samples=[value * 3 for value in run.samples], median=run.median * 3))
    engine.dispose()
    second = run_pytest([*select, "--baseline", f"--hil-db={url}"], vlab_subprocess_env, tmp_path / "r2")
    assert second.returncode == 1, second.stdout[-6000:]
    result = json.loads((tmp_path / "r2" / "results.json").read_text())["results"][0]
    assert result["verdict"] == "REGRESSION", result["reason"]
    comparison = result["baseline"]
    assert comparison["regression"] is True and comparison["p_value"] < 0.01 and comparison["change"] < -0.05
    assert "run-to-run spread unknown" in comparison["reason"] and "confirmed after a power cycle" in result["reason"]
    assert comparison["first_attempt"]["change"] < -0.05, "the suspecting attempt is kept"
    assert result["facts"]["boot.vboard"].endswith("2 power-on(s) this session"), "re-measured after a power cycle"
