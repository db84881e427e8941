"""Reports that cannot be written: refused before any test runs, or, when the disk fills up during the
run, the results written so far stay valid and the session ends cleanly with a clear line."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import pytest

MANY = """
import pytest
from hil.report.collect import attach
from hil.report.outcome import raise_for_verdict
from hil.report.testing import example_result


@pytest.mark.parametrize("n", range(40))
def test_read(request, n):
    result = example_result(params={"bs": "1M", "n": n}, values=[41.0 + n % 3, 42.0, 43.0])
    for sample in result.samples:
        sample.raw = "x" * 2000  # a tool's output kept for audit: results.json grows by every test
    attach(request.node, result)
    raise_for_verdict(result)
"""


def test_a_reports_directory_that_cannot_be_written_stops_the_run_before_any_test(inner):
    inner.pytester.makepyfile(test_perf=MANY)
    blocker = inner.path / "not-a-dir"
    blocker.write_text("a file where the reports should go")
    result = inner(f"--hil-reports={blocker}/reports")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: reports cannot be written to {blocker}/reports: *"])
    assert "passed" not in result.stdout.str() and "Traceback" not in result.stderr.str()


@pytest.fixture
def tiny_disk(tmp_path: Path):
    """A 64 KiB tmpfs: a disk that fills up after a few results."""
    mountpoint = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    mountpoint.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mountpoint)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root in a mount namespace that allows it)")
    yield mountpoint
    subprocess.run(["umount", str(mountpoint)], check=True)


def test_a_disk_that_fills_up_keeps_the_results_so_far_and_ends_cleanly(inner, tiny_disk):
    inner.pytester.makepyfile(test_perf=MANY)
    # The results database, report.html and junit.xml elsewhere: this disk is results.json's (a full database
    # spools: tests/db; the other two are pytest-html's and pytest's own files).
    elsewhere = [
        f"--hil-db=sqlite:///{inner.path}/hil.db",
        f"--html={inner.path}/r.html",
        f"--junitxml={inner.path}/j.xml",
    ]
    result = inner(f"--hil-reports={tiny_disk}/reports", *elsewhere)
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR, result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines(["*results.json not updated: No space left on device*keeps the results written before"])
    assert "INTERNALERROR" not in result.stdout.str()
    result.assert_outcomes(passed=40)  # every test ran to the end
    kept = json.loads((tiny_disk / "reports" / "results.json").read_text())
    assert 0 < len(kept["results"]) < 40, "the last complete write is on disk, and valid JSON"
