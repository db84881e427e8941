"""Data integrity through a real pytest run of `perf.check(verify=...)` on a pair of this PC: dd really reads
a disk (a file on this PC's disk, O_DIRECT), then hil.measure.integrity really writes random data to it,
reads it back and compares it with the far side's copy. Intact data leaves the band's verdict alone; a far
side that does not hold what was written (a gadget whose backing file is not the disk the host wrote) is a
FAIL of the metric whatever its rate; a disk that vanished before the verification is an ERROR.
"""

from __future__ import annotations

import json

import pytest
from pc_lab import PC_ENV, PC_PAIR

TESTS = """
import pathlib
from hil.measure import dd, integrity


def disk(name, size_mb=4):
    path = pathlib.Path(name).resolve()
    path.write_bytes(bytes(size_mb * 1024 * 1024))
    return str(path)


def check(pair, perf, node, far, case):
    perf.check(
        "usb.msc.read",
        bs="1M",
        case=case,  # a key per case: one run's key names one procedure
        cpu_load_on=None,
        sample=lambda: dd.read(pair.host, node, block_size="1M", total_mb=4),
        verify=lambda: integrity.block_device(pair.host, node, size_mb=2, far=(pair.device, far)),
    )


def test_intact(pair, perf):
    node = disk("lun.img")
    check(pair, perf, node, node, "intact")


def test_far_side_holds_other_bytes(pair, perf):
    check(pair, perf, disk("lun2.img"), disk("stale-backing.img"), "stale")


def test_disk_gone(pair, perf):
    node, runs = disk("lun3.img"), []
    def sample():
        runs.append(dd.read(pair.host, node, block_size="1M", total_mb=4))
        if len(runs) == 2:
            pathlib.Path(node).unlink()  # after the timed runs' last: the verification finds no disk
        return runs[-1]
    perf.check("usb.msc.read", bs="1M", case="gone", cpu_load_on=None, sample=sample,
               verify=lambda: integrity.block_device(pair.host, node, size_mb=2))
"""


@pytest.fixture
def lab(pytester):
    defaults = "defaults: {min_samples: 2, max_samples: 2, warmup: 0, max_cv: 90%}\n"
    pytester.makefile(".yaml", lab=PC_ENV, boards=defaults + PC_PAIR)
    pytester.makepyfile(test_disks=TESTS)
    return pytester


def test_intact_data_keeps_the_verdict_and_corrupted_data_fails_the_metric(lab):
    run = lab.runpytest_subprocess("-p", "no:cacheprovider", "--boards", "boards.yaml")
    run.assert_outcomes(passed=1, failed=1, errors=1, warnings=run.parseoutcomes().get("warnings", 0))
    stored = json.loads((lab.path / "reports" / "results.json").read_text())["results"]
    results = {result["test_id"].split("::")[1].split("[")[0]: result for result in stored}

    intact = results["test_intact"]
    # The band's own verdict, untouched (two samples of this PC's disk may straddle an edge: MARGINAL).
    assert intact["verdict"] in ("PASS", "MARGINAL")
    assert intact["facts"]["integrity"].startswith("2 MiB of random data written to ")
    assert intact["facts"]["integrity"].endswith("lun.img held them")

    corrupted = results["test_far_side_holds_other_bytes"]
    assert corrupted["verdict"] == "FAIL" and len(corrupted["samples"]) == 2  # the rate is kept
    assert corrupted["reason"].startswith("data corrupted: ")
    assert "stale-backing.img does not hold the 2 MiB" in corrupted["reason"]
    assert "corrupted on the way in" in corrupted["reason"]
    assert corrupted["facts"]["integrity"].startswith("CORRUPTED: ")

    gone = results["test_disk_gone"]
    assert gone["verdict"] == "ERROR"
    assert gone["reason"].startswith("integrity not verified: ")
    assert "lun3.img: gone" in gone["error_output"]  # not a regular file made where the disk was
