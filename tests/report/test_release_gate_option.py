"""`--build` and `--reference-build` through real pytest runs on a pair of this PC (no board to boot: the lab
PC's target has no strategy, so the build is recorded, not put anywhere). The figures are scripted: this
tests the plumbing (identity in results.json, the gate files, the HTML banner, the exit status); the virtual
lab's tests/vlab/test_release_gate_vlab.py puts real builds on a real (virtual) board."""

from __future__ import annotations

import json
import re

import pytest
from pc_lab import PC_ENV, PC_PAIR

from hil import pipeline

TESTS = """
import os
import pytest
from hil.verdict.measurement import Measurement, Quantity

pytestmark = pytest.mark.hil_metrics("usb.msc.read")
SPREAD = iter([0.0, 0.4, -0.3, 0.2, -0.1, 0.3, -0.2, 0.1])


def test_read(pair, perf):
    rate = float(os.environ["RATE"])
    perf.check("usb.msc.read", sample=lambda: Measurement({"throughput": Quantity(rate + next(SPREAD), "MB/s")}))
"""


@pytest.fixture
def lab(pytester):
    pytester.makefile(".yaml", lab=PC_ENV, boards=PC_PAIR.replace("usb.msc.read: {", "usb.msc.read: {max_cv: 50%, "))
    pytester.makepyfile(test_gate=TESTS)
    for name in ("rc0", "rc1"):
        (pytester.path / name).mkdir()
        (pytester.path / name / "Image").write_bytes(name.encode() * 100)
        (pytester.path / name / "build.yaml").write_text(f"name: {name}\nimages: {{kernel: Image}}\n")
    return pytester


def _run(lab, monkeypatch, rate, *args):
    monkeypatch.setenv("RATE", str(rate))
    return lab.runpytest_subprocess(
        "-p", "no:cacheprovider", "--boards", "boards.yaml", "--samples", "6", "--html", "reports/report.html", *args
    )


def test_a_build_slower_than_the_reference_is_blocked_and_the_reports_open_with_the_gate(lab, monkeypatch):
    for _ in range(2):
        assert _run(lab, monkeypatch, 40, "--build", "rc0/build.yaml").ret == 0
    stored = json.loads((lab.path / "reports" / "results.json").read_text())
    assert stored["run"]["build"]["name"] == "rc0" and stored["run"]["build"]["images"]["kernel"]["bytes"] == 300
    assert (
        stored["run"]["inventory"]["path"].endswith("boards.yaml") and len(stored["run"]["inventory"]["sha256"]) == 64
    )

    result = _run(lab, monkeypatch, 30, "--build", "rc1/build.yaml", "--reference-build", "rc0")
    assert result.ret == 1  # the test passed its band (min 1 MB/s), the build did not pass the gate
    result.stdout.fnmatch_lines(["*release gate against rc0: BLOCKED: pc-pair usb.msc.read (regression)*"])
    gate = json.loads((lab.path / "reports" / "gate.json").read_text())
    assert gate["gate"] == "BLOCKED" and gate["rows"][0]["regression"] and gate["rows"][0]["change"] < -0.2
    assert (lab.path / "reports" / "gate.md").read_text().startswith("## Release gate: BLOCKED")
    line = pipeline.summary(lab.path / "reports", result.ret, "pc-pair")  # a Jenkins build's description
    assert line.startswith("pc-pair: gate failed; release gate BLOCKED: pc-pair usb.msc.read (regression)")
    page = (lab.path / "reports" / "report.html").read_text()
    assert re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", stored["run"]["host"]["hil_commit"])  # hil from its checkout
    assert "boards.yaml (SHA-256 " in page and "rc1 (kernel " in page  # pytest-html's Environment table
    assert "pc-pair: labgrid environment lab.yaml on this PC (" in page  # its lab row, known once the pair ran
    assert "Release gate against rc0 (2 runs): BLOCKED" in page and ">hil: build rc1 on boards.yaml (" in page

    assert _run(lab, monkeypatch, 40, "--build", "rc1/build.yaml", "--reference-build", "rc0").ret == 0


def test_a_reference_build_with_no_stored_run_and_a_bad_manifest_stop_the_run_before_any_test(lab, monkeypatch):
    result = _run(lab, monkeypatch, 40, "--reference-build", "rc9")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--reference-build: no run of build 'rc9' stored in the results database*"])
    (lab.path / "rc1" / "Image").unlink()
    result = _run(lab, monkeypatch, 40, "--build", "rc1/build.yaml")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*invalid --build: *rc1/build.yaml: images/kernel: *rc1/Image: no such file*"])
