"""Baselines in the results database, on SQLite and PostgreSQL: updates, the runs kept, and the baseline files
earlier hil versions wrote refused."""

from __future__ import annotations

import json

import pytest

from hil.db.baselines import Baselines
from hil.db.cli import main as db
from hil.db.engine import open_db
from hil.db.schema import BaselineRow
from hil.db.write import write_run
from hil.records.store import RunInfo
from hil.report.testing import example_result
from hil.verdict.result import Verdict

KEY = "usb.msc.read[bs=1M]"


def _result(bs, values=(40.0, 41.0, 42.0), verdict=Verdict.PASS, **kw):
    return example_result(verdict, params={"bs": bs}, values=values, **kw)


def _update(engine, results, run_id="run-1", runs_kept=5):
    """As --update-baseline does it: the run's results are in the database first."""
    info = RunInfo.start("pytest testcases")
    info.id = run_id
    write_run(engine, info, results)
    return Baselines(engine, runs_kept).update_all(results, run_id)


@pytest.fixture
def engine(db_url):
    engine = open_db(db_url)
    yield engine
    engine.dispose()


def test_an_update_names_the_run_the_result_and_who_set_it(engine):
    (update,) = _update(engine, [_result("1M")])
    assert (update.board, update.status, update.written, update.skipped) == ("vboard-hs", "created", (KEY,), ())
    baseline = Baselines(engine).load("vboard-hs")
    assert baseline.runs_for(KEY) == [[40.0, 41.0, 42.0]] and baseline.run_for(KEY) == "run-1"
    assert baseline.runs_for("usb.msc.read[bs=4k]") is None
    with engine.connect() as connection:
        (row,) = connection.execute(BaselineRow.__table__.select())
    assert row.result_id is not None and "@" in row.set_by and row.set_at is not None
    assert Baselines(engine).load("other") is None


def test_runs_accumulate_and_metrics_not_measured_keep_theirs(engine):
    _update(engine, [_result("4k", (10.0, 11.0)), _result("1M")], "run-1")
    (update,) = _update(engine, [_result("1M", (50.0, 51.0))], "run-2")
    assert (update.status, update.runs_held) == ("updated", (2, 2))
    baseline = Baselines(engine).load("vboard-hs")
    assert baseline.runs_for(KEY) == [[40.0, 41.0, 42.0], [50.0, 51.0]]
    assert baseline.run_for(KEY) == "2 runs run-1 .. run-2"
    assert baseline.runs_for("usb.msc.read[bs=4k]") == [[10.0, 11.0]]
    assert baseline.run_for("usb.msc.read[bs=4k]") == "run-1"


def test_a_baseline_keeps_the_newest_runs_and_one_entry_per_run(engine):
    for run in ("r1", "r2", "r3", "r4"):
        _update(engine, [_result("1M", (float(run[1]), 9.0))], run, runs_kept=3)
    (again,) = Baselines(engine, 3).update_all([_result("1M", (7.0, 8.0))], "r4")
    baseline = Baselines(engine).load("vboard-hs")
    assert baseline.runs_for(KEY) == [[2.0, 9.0], [3.0, 9.0], [7.0, 8.0]]
    assert baseline.run_medians("MB/s") == {KEY: [5.5, 6.0, 7.5]}
    assert baseline.run_medians("%") == {}  # a CPU share's spread says nothing of a rate's
    assert again.runs_held == (3, 3)


def test_a_metric_whose_unit_changed_starts_over(engine):
    _update(engine, [_result("1M")], "r1")
    _update(engine, [_result("1M", (300.0, 310.0), unit="Mbit/s")], "r2")
    assert Baselines(engine).load("vboard-hs").runs_for(KEY) == [[300.0, 310.0]]


def test_errors_and_lone_samples_are_not_baselines(engine):
    (update,) = _update(engine, [_result("1M", verdict=Verdict.ERROR), _result("4k", (40.0,))])
    assert (update.status, update.written) == ("unchanged", ())
    assert update.skipped == ("usb.msc.read[bs=1M]", "usb.msc.read[bs=4k]")
    assert Baselines(engine).load("vboard-hs") is None


def test_each_board_pair_has_its_own(engine):
    updates = _update(engine, [_result("1M", board="b/one"), _result("1M", board="two", values=(5.0, 6.0))])
    assert [u.board for u in updates] == ["b/one", "two"]
    assert Baselines(engine).load("two").runs_for(KEY) == [[5.0, 6.0]]


def _file(path, board="vboard-hs", metrics=None):
    metrics = metrics or {KEY: {"unit": "MB/s", "runs": [{"run": "old", "samples": [9.0, 9.5], "median": 9.25}]}}
    path.write_text(json.dumps({"board": board, "run": "old", "created": "2025-01-01T00:00:00+00:00", "facts": {},
                                "metrics": metrics}))  # fmt: skip
    return path


def test_a_baseline_file_of_an_earlier_hil_is_refused_and_can_no_longer_relabel_a_stored_run(db_url, tmp_path, capsys):
    """Such a file said which run measured which samples, and nothing tied them to that run's stored result: importing
    one that named a stored run of 40-42 MB/s with samples of 80-82 made the baseline say that run measured 80-82."""
    engine = open_db(db_url)
    info = RunInfo.start("pytest testcases")
    info.id = "old"
    write_run(engine, info, [_result("1M")])
    forged = {KEY: {"unit": "MB/s", "runs": [{"run": "old", "samples": [80.0, 81.0, 82.0], "median": 81.0}]}}
    files = [_file(tmp_path / "vboard-hs.json", metrics=forged), _file(tmp_path / "b_one.json", board="b/one")]
    assert db(["--hil-db", db_url, "import", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    for path in files:
        assert f"hil db import: skipped {path}: a baseline file of hil before the results database: not imported" in err
    assert "imported 0 run(s), skipped 2 file(s)" in out and "Traceback" not in err
    assert Baselines(engine).load("vboard-hs") is None and Baselines(engine).load("b/one") is None
    engine.dispose()


def test_a_baseline_measured_on_another_board_names_both(engine):
    result = _result("1M")
    result.facts.lab = "place imx8-a"
    result.facts.board("device").arch, result.facts.board("device").kernel = "aarch64", "6.1.0"
    _update(engine, [result])
    baseline = Baselines(engine).load("vboard-hs")
    candidate = {"lab": "place imx8-b", "arch.device": "aarch64", "kernel.device": "6.6.0"}
    said = "run-1 (reference measured on board lab place imx8-a, candidate on lab place imx8-b)"
    assert baseline.run_for(KEY, candidate) == said
    assert baseline.run_for(KEY, {**candidate, "lab": "place imx8-a"}) == "run-1"  # another kernel: same board
