"""Baselines in the results database, on SQLite and PostgreSQL: updates, the runs kept, and the import of the
baseline files earlier hil versions wrote."""

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


def test_import_loads_baseline_files_linking_the_runs_it_holds(db_url, tmp_path, capsys):
    history, files = tmp_path / "history", tmp_path / "baselines"
    history.mkdir(), files.mkdir()
    info = RunInfo.start("pytest testcases")
    info.id = "old"
    document = {
        "schema": 1,
        "run": info.to_dict(),
        "results": [_result("1M", (9.0, 9.5), verdict=Verdict.FAIL).to_dict()],
    }
    (history / "old.json").write_text(json.dumps(document))
    _file(files / "vboard-hs.json")
    _file(files / "b_one.json", board="b/one", metrics={"m": {"unit": "MB/s", "samples": [1.0, 2.0], "median": 1.5}})
    assert db(["--hil-db", db_url, "import", str(files), str(history)]) == 0
    assert "imported 1 run(s), 2 baseline run(s), skipped 0 file(s)" in capsys.readouterr().out
    assert db(["--hil-db", db_url, "import", str(files)]) == 0  # again: nothing twice
    engine = open_db(db_url)
    assert Baselines(engine).load("vboard-hs").runs_for(KEY) == [[9.0, 9.5]]
    assert Baselines(engine).load("b/one").run_for("m") == "old"  # the one-run format before runs were kept
    with engine.connect() as connection:
        rows = {row.board: row for row in connection.execute(BaselineRow.__table__.select())}
    assert len(rows) == 2 and rows["vboard-hs"].result_id is not None and rows["b/one"].result_id is None
    assert rows["b/one"].set_by.endswith(f"hil db import {files / 'b_one.json'}")
    engine.dispose()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"board": "vboard-hs", "run": "r", "created": "c", "metrics": {}}', "ValueError: Invalid isoformat"),
        ('{"board": "b", "run": "r", "created": "c", "metrics": {"k": {"unit": "MB/s", "samples": [1, "x"], '
         '"median": 1}}}', "is not a finite number"),
        ('{"board": "b", "metrics": {"m": {"unit": "MB/s", "samples": [Infinity]}}}', "not valid JSON"),
        ('{"board": "b", "run": "r", "created": "c", "metrics": {"m": [1]}}', "metric 'm' is not an object"),
    ],
)  # fmt: skip
def test_a_bad_baseline_file_is_skipped_naming_it(db_url, tmp_path, capsys, content, message):
    bad = tmp_path / "vboard-hs.json"
    bad.write_text(content)
    assert db(["--hil-db", db_url, "import", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"hil db import: skipped {bad}" in err and message in err and "Traceback" not in err


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
