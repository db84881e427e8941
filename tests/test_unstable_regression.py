"""A result that is UNSTABLE and regressed says both, and every report shows the baseline comparison.

The issue: an UNSTABLE verdict's reason named only the CV while its baseline block said -61%, p=2e-5;
the summary table and the JUnit properties had no baseline change or p value. A pair on this PC
(tests/pc_lab.py) runs real `perf.check`s against a real three-run baseline; the samples are scripted
(clean runs at 100 MB/s, then a run about 60% slower and spread far beyond max_cv).
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest
from pc_lab import PC_ENV, PC_PAIR

BOARDS = "defaults: {min_samples: 5, max_samples: 8, warmup: 1, max_cv: 5%, min_effect: 5%}\n" + PC_PAIR

# Each run reads [speed, spread] from run.json: samples are speed * (1 + spread * wobble).
TESTS = """
import json, pathlib
import pytest

@pytest.mark.hil_metrics("usb.msc.read")
def test_read(pair, perf):
    speed, spread = json.loads(pathlib.Path("run.json").read_text())
    wobble = iter([0.0, 1.0, -1.0, 0.5, -0.5, 0.8, -0.8, 0.2, -0.2] * 2)
    perf.check("usb.msc.read", bs="1M", sample=lambda: speed * (1 + spread * next(wobble)))
"""

REPORT_ARGS = ("--html=reports/report.html", "--self-contained-html", "--junitxml=reports/junit.xml")


@dataclass
class Run:
    path: Path
    status: int
    output: pytest.LineMatcher


def _run(path: Path, speed: float, spread: float, *args: str) -> Run:
    (path / "run.json").write_text(json.dumps([speed, spread]))
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *REPORT_ARGS, *args]
    done = subprocess.run(command, cwd=path, capture_output=True, text=True, timeout=300, check=False)
    return Run(path, done.returncode, pytest.LineMatcher(done.stdout.splitlines()))


@pytest.fixture(scope="module")
def unstable_and_slower(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """Three clean runs stored as the baseline, then the unstable, slower run compared with it (once per module:
    the baseline alone takes three runs)."""
    path = tmp_path_factory.mktemp("lab")
    (path / "lab.yaml").write_text(PC_ENV)
    (path / "boards.yaml").write_text(BOARDS)
    (path / "test_read.py").write_text(TESTS)
    (path / "pytest.ini").write_text("[pytest]\njunit_family = xunit1\n")  # <properties> per testcase
    for speed in (100.0, 97.0, 103.0):
        assert _run(path, speed, 0.01, "--update-baseline").status == 0
    return _run(path, 40.0, 0.3, "--baseline")


def _result(run: Run) -> dict:
    (result,) = json.loads((run.path / "reports" / "results.json").read_text())["results"]
    return result


def test_an_unstable_result_that_regressed_says_both_in_its_reason_and_failure(unstable_and_slower):
    run = unstable_and_slower
    assert run.status == 1
    result = _result(run)
    assert result["verdict"] == "UNSTABLE" and result["baseline"]["regression"]
    assert result["reason"].startswith("unstable: CV ")
    assert "; and a regression against " in result["reason"] and "confirmed after a power cycle" in result["reason"]
    run.output.fnmatch_lines(
        ["usb.msc.read[[]bs=1M[]]: unstable: CV *; and a regression against *confirmed after a power cycle*"]
    )


def test_the_terminal_summary_shows_the_baseline_change_p_and_runs(unstable_and_slower):
    run = unstable_and_slower
    base = _result(run)["baseline"]
    assert base["change"] < -0.5 and base["p_value"] < 0.001 and base["run_p"] < 0.05 and base["baseline_runs"] == 3
    run.output.fnmatch_lines(
        [
            "board*metric*median*unit*band*CV*n*vs base*p*run p*runs*verdict*stop",
            f"pc-pair*usb.msc.read[[]bs=1M[]]*{base['change'] * 100:+.1f}%*<0.001*<0.001*3*UNSTABLE+REGRESSION*",
            "1 test ran: 1 failed; 1 metrics: 1 UNSTABLE+REGRESSION",
        ]
    )


def test_the_html_summary_shows_the_baseline_change_p_and_runs(unstable_and_slower):
    run = unstable_and_slower
    base = _result(run)["baseline"]
    html = (run.path / "reports" / "report.html").read_text()
    assert "<th>vs baseline</th><th>p</th><th>run p</th><th>baseline runs</th>" in html
    assert f'<td class="hil-num">{base["change"] * 100:+.1f}%</td><td class="hil-num">&lt;0.001</td>' in html
    assert ">UNSTABLE+REGRESSION<" in html
    assert "<th>vs baseline (p)</th>" in html  # and in the results table, beside each test's verdict and median
    assert f"{base['change'] * 100:+.1f}% (p=&amp;lt;0.001)" in html  # its rows are JSON in an attribute


def test_the_junit_properties_carry_the_baseline_change_p_and_runs(unstable_and_slower):
    run = unstable_and_slower
    base = _result(run)["baseline"]
    case = ET.parse(run.path / "reports" / "junit.xml").getroot().find("testsuite/testcase")
    props = {p.get("name").split("].", 1)[-1]: p.get("value") for p in case.iterfind("properties/property")}
    assert float(props["baseline_change_percent"]) == pytest.approx(base["change"] * 100, abs=0.01)
    assert float(props["baseline_p_value"]) == pytest.approx(base["p_value"], rel=0.01)
    assert float(props["baseline_run_p_value"]) == pytest.approx(base["run_p"], rel=0.01)
    assert (props["baseline_runs"], props["baseline_regression"], props["verdict"]) == ("3", "true", "UNSTABLE")
    assert "; and a regression against " in props["reason"]
