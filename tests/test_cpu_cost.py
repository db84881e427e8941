"""A rate's CPU cost gated beside it, through a real pytest run of `perf.check` on a pair of this PC: the
test case checks `usb.msc.read` only; the pair that gives `usb.msc.read.cpu_busiest` a band gets it measured
from the same runs (the role's /proc/stat around each run) and gated, lower is better; a pair without that
band measures the rate alone. The "transfer" spins one core for half a second, so its busiest core is busy."""

from __future__ import annotations

import json

import pytest
from pc_lab import PC_ENV

BOARDS = """\
defaults: {min_samples: 3, max_samples: 3, warmup: 0, max_cv: 90%}
pairs:
  costly:
    env: lab.yaml
    roles: {host: {target: lab-pc}, device: {target: lab-pc}}
    link: {type: usb, speed: high, udc: none.0, emulated: true}
    metrics:
      usb.msc.read: {unit: MB/s, min: 1, max: 100000}
      usb.msc.read.cpu_busiest: {unit: '%', max: 50, source: 'seed 001: a transfer costs < 25%, loosened'}
  rate-only:
    env: lab.yaml
    roles: {host: {target: lab-pc}, device: {target: lab-pc}}
    link: {type: usb, speed: high, udc: none.0, emulated: true}
    metrics:
      usb.msc.read: {unit: MB/s, min: 1, max: 100000}
"""

TESTS = """
import pytest
from hil.lab.board import shell
from hil.verdict.result import Sample

pytestmark = pytest.mark.hil_metrics("usb.msc.read")


def test_spin(pair, perf):
    def spin():
        busy = shell.cmd("timeout", "0.5", "sh", "-c", "while :; do :; done")
        output = pair.device.run(busy + "; echo 42", check=False)
        return Sample(value=float(output.split()[-1]), started=0.0, duration_s=0.5, raw=output)

    perf.check("usb.msc.read", sample=spin)
"""


@pytest.fixture
def lab(pytester):
    pytester.makefile(".yaml", lab=PC_ENV, boards=BOARDS)
    pytester.makepyfile(test_spin=TESTS)
    return pytester


def test_the_cpu_cost_is_measured_and_gated_where_the_pair_gives_it_a_band(lab):
    run = lab.runpytest_subprocess("-p", "no:cacheprovider", "--boards", "boards.yaml")
    run.assert_outcomes(passed=1, failed=1)
    results = json.loads((lab.path / "reports" / "results.json").read_text())["results"]
    measured = {(result["board"], result["metric"]): result for result in results}
    assert set(measured) == {
        ("costly", "usb.msc.read"),
        ("costly", "usb.msc.read.cpu_busiest"),
        ("rate-only", "usb.msc.read"),
    }
    for board in ("costly", "rate-only"):
        rate = measured[(board, "usb.msc.read")]
        assert rate["verdict"] == "PASS" and [s["value"] for s in rate["samples"]] == [42.0] * 3
        assert rate["samples"][0]["raw"].endswith("42")  # the tool's output is kept with the rate
    cost = measured[("costly", "usb.msc.read.cpu_busiest")]
    assert cost["verdict"] == "FAIL" and cost["unit"] == "%"
    assert all(80 <= sample["value"] <= 100 for sample in cost["samples"]), cost["samples"]
    assert "too high" in cost["reason"] or "above" in cost["reason"], cost["reason"]
    run.stdout.fnmatch_lines(["*costly*usb.msc.read.cpu_busiest*FAIL*"])
