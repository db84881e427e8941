"""Several devices from the same runs through a real pytest run of `perf.check` on a pair of this PC: two files
on this PC's disk (O_DIRECT) read at once by hil.measure.dd_together, each file's rate its own result
(`disk=<name>`, banded) and the sum a third (no band: INFO), all from the same samples."""

from __future__ import annotations

import json

import pytest
from pc_lab import PC_ENV, PC_PAIR

TESTS = """
import pathlib
from hil.measure import dd_together


def test_two_disks_at_once(pair, perf):
    disks = {}
    for name in ("a", "b"):
        path = pathlib.Path(f"{name}.img").resolve()
        path.write_bytes(bytes(4 * 1024 * 1024))
        disks[name] = str(path)
    perf.check(
        [("usb.disk.together.read", {"disk": "a"}), ("usb.disk.together.read", {"disk": "b"}),
         "usb.disk.together.total.read"],
        bs="1M",
        cpu_load_on=None,
        sample=lambda: dd_together.run(pair.host, disks, "read", block_size="1M", total_mb=4),
    )
"""


def test_each_disk_is_its_own_result_and_the_sum_is_recorded_beside_them(pytester):
    defaults = "defaults: {min_samples: 3, max_samples: 3, warmup: 0, max_cv: 90%}\n"
    boards = PC_PAIR.replace("usb.msc.read:", "usb.disk.together.read:")
    pytester.makefile(".yaml", lab=PC_ENV, boards=defaults + boards)
    pytester.makepyfile(test_disks=TESTS)
    run = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--boards", "boards.yaml")
    run.assert_outcomes(passed=1, warnings=run.parseoutcomes().get("warnings", 0))
    stored = json.loads((pytester.path / "reports" / "results.json").read_text())["results"]
    by_key = {(r["metric"], r["params"].get("disk")): r for r in stored}
    assert set(by_key) == {
        ("usb.disk.together.read", "a"),
        ("usb.disk.together.read", "b"),
        ("usb.disk.together.total.read", None),
    }
    a, b = by_key["usb.disk.together.read", "a"], by_key["usb.disk.together.read", "b"]
    total = by_key["usb.disk.together.total.read", None]
    assert a["verdict"] in ("PASS", "MARGINAL") and b["verdict"] in ("PASS", "MARGINAL")
    assert total["verdict"] == "INFO" and total["band"] is None
    assert a["params"] == {"bs": "1M", "disk": "a"} and total["params"] == {"bs": "1M"}
    # The same runs: each sample of the sum is both files' bytes over the span around both dd runs.
    for sample_a, sample_b, sample_total in zip(a["samples"], b["samples"], total["samples"], strict=True):
        assert sample_a["started"] == sample_b["started"] == sample_total["started"]
        span_s = sample_a["details"]["span_s"]
        assert sample_total["value"] == pytest.approx(2 * 4 * 1024 * 1024 / span_s / 1e6, rel=1e-3)
