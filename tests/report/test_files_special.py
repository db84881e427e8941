"""Outputs that are not regular files are written in place, never renamed over; inputs are regular files of
bounded size, read with a timeout (a FIFO named *.json used to hang compare, trend and `pipeline summary`;
a *.json symlink to /dev/zero was a MemoryError; `--json /dev/full` as root turned the device into a file)."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from hil.db import cli as db_cli
from hil.pipeline import summary
from hil.records.files import UnreadableJson, atomic_write_text, read_bytes, read_json
from hil.records.store import ResultStore, RunInfo
from hil.report.testing import example_result
from hil.report.trend import main


def test_a_symlink_to_a_device_stays_a_symlink_and_the_device_a_device(tmp_path):
    link = tmp_path / "out.json"
    link.symlink_to("/dev/null")
    atomic_write_text(link, "{}\n")
    assert link.is_symlink() and stat.S_ISCHR(Path("/dev/null").stat().st_mode)


def test_a_full_device_is_an_error_and_stays_a_device(tmp_path):
    link = tmp_path / "full.json"
    link.symlink_to("/dev/full")
    with pytest.raises(OSError, match="No space"):
        atomic_write_text(link, "{}\n")
    assert stat.S_ISCHR(Path("/dev/full").stat().st_mode)


def test_a_fifo_without_a_reader_is_refused_at_once_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "gate.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError):
        atomic_write_text(fifo, "{}\n")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_symlink_to_a_regular_file_keeps_the_link_and_replaces_the_target(tmp_path):
    target, link = tmp_path / "real.html", tmp_path / "trend.html"
    target.write_text("old")
    link.symlink_to(target)
    atomic_write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real.html", "trend.html"]


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError):
        atomic_write_text(tmp_path, "x")


def test_trend_output_on_a_device_symlink_writes_through_it(tmp_path):
    history = tmp_path / "history"  # as earlier versions kept every run's results.json
    history.mkdir()
    store = ResultStore(history / "run.json", RunInfo.start("pytest"))
    store.add(example_result())
    store.finish()
    database = f"sqlite:///{tmp_path / 'hil.db'}"
    assert db_cli.main(["--hil-db", database, "import", str(history)]) == 0
    out = tmp_path / "trend.html"
    out.symlink_to("/dev/null")
    assert main(["--hil-db", database, "-o", str(out)]) == 0
    assert out.is_symlink()


@pytest.mark.parametrize("kind", ["fifo", "zero", "directory"])
def test_an_input_that_is_no_regular_file_is_refused_at_once(tmp_path, kind):
    path = tmp_path / "20251101T000000Z-000000.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    started = time.monotonic()
    with pytest.raises(UnreadableJson, match="not a regular file"):
        read_json(path)
    assert time.monotonic() - started < 5


def test_a_history_with_a_fifo_and_a_zero_link_still_imports_its_good_runs(tmp_path, capsys):
    history = tmp_path / "history"  # as earlier versions kept every run's results.json
    history.mkdir()
    store = ResultStore(history / "run.json", RunInfo.start("pytest"))
    store.add(example_result())
    store.finish()
    os.mkfifo(history / "20200101T000000Z-fifo00.json")
    (history / "20200101T000000Z-zero00.json").symlink_to("/dev/zero")
    database = f"sqlite:///{tmp_path / 'hil.db'}"
    assert db_cli.main(["--hil-db", database, "import", str(history)]) == 1  # something was skipped
    said = capsys.readouterr()
    skipped = [line for line in said.err.splitlines() if "skipped" in line]
    assert len(skipped) == 2 and all("not a regular file" in line for line in skipped), skipped
    assert "imported 1 run(s), skipped 2 file(s)" in said.out


def test_pipeline_summary_of_a_fifo_results_file_says_so(tmp_path):
    os.mkfifo(tmp_path / "results.json")
    assert "not a regular file" in summary(tmp_path, 0)


def test_an_input_above_its_bound_is_refused(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b" " * 2000)
    with pytest.raises(OSError, match="more than the 1000"):
        read_bytes(path, limit=1000)
    assert read_bytes(path, limit=2000) == b" " * 2000
