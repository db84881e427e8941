"""A result key names one procedure: a second test of a run measuring under a key another test measured is
refused (a lab's own case beside the stock one stored two procedures under `usb.msc.read[bs=1M]`); one with a
parameter of its own gets its own key. Through a real pytest run of `perf.check` on a pair of this PC."""

from __future__ import annotations

import json

from pc_lab import PC_ENV, PC_PAIR

BOARDS = "defaults: {min_samples: 3, max_samples: 3, warmup: 0, max_cv: 90%}\n" + PC_PAIR

TESTS = """
import pytest
from hil.verdict.result import Sample

pytestmark = pytest.mark.hil_metrics("usb.msc.read")


def read():
    return Sample(value=42.0, started=0.0, duration_s=0.1, raw="42")


def test_stock(pair, perf):
    perf.check("usb.msc.read", bs="1M", sample=read)


def test_own_under_the_stock_key(pair, perf):
    perf.check("usb.msc.read", bs="1M", sample=read)


def test_own_with_its_own_key(pair, perf):
    perf.check("usb.msc.read", bs="1M", total="8M", sample=read)
"""


def test_a_second_procedure_under_one_key_is_refused_and_one_with_its_own_parameter_is_kept(pytester):
    pytester.makefile(".yaml", lab=PC_ENV, boards=BOARDS)
    pytester.makepyfile(test_cases=TESTS)
    run = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--boards", "boards.yaml")
    run.assert_outcomes(passed=2, errors=1)  # a lab error of the case, not a figure that missed its band
    said = "usb.msc.read[[]bs=1M[]] was measured in this run by test_cases.py::test_stock[[]pc-pair[]]: a case that"
    run.stdout.fnmatch_lines([f"*{said}*"])
    results = json.loads((pytester.path / "reports" / "results.json").read_text())["results"]
    assert [(r["test_id"].split("::")[1], r["params"]) for r in results] == [
        ("test_stock[pc-pair]", {"bs": "1M"}),
        ("test_own_with_its_own_key[pc-pair]", {"bs": "1M", "total": "8M"}),
    ]
