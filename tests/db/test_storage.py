"""Runs written to and read back from the results database, the same tests on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import numpy as np

from hil.db.engine import open_db
from hil.db.read import all_runs, builds, history, runs_of_build
from hil.db.spool import Spool
from hil.db.write import RunWriter, write_run
from hil.report.store import RunInfo
from hil.report.testing import example_result
from hil.verdict.result import Verdict

HOSTILE = 'x\'); DROP TABLE runs; -- <script>alert("1")</script>'


def _run(build: str | None = "rc1", **identity) -> RunInfo:
    return RunInfo.start("pytest testcases", build={"name": build, "version": "1"} if build else None, **identity)


def _doc(stored) -> str:
    return json.dumps({"run": stored.run.to_dict(), "results": [r.to_dict() for r in stored.results]}, sort_keys=True)


def test_a_run_reads_back_exactly_as_it_was_written(db_url):
    engine = open_db(db_url)
    info = _run(inventory={"path": "boards.yaml", "sha256": "a" * 64})
    results = [example_result(), example_result(Verdict.FAIL, metric="usb.msc.write", values=[30.0, 31.0, 30.5])]
    write_run(engine, info, results)
    (back,) = all_runs(engine)
    expected = type(back)(info, results)
    assert _doc(back) == _doc(expected)


def test_names_with_quotes_sql_and_html_are_stored_verbatim(db_url):
    engine = open_db(db_url)
    info = _run(build=HOSTILE)
    write_run(engine, info, [example_result(board=HOSTILE, params={"bs": HOSTILE}, metric="usb.msc.read")])
    (back,) = runs_of_build(engine, HOSTILE)
    assert back.run.build["name"] == HOSTILE
    assert back.results[0].board == HOSTILE and back.results[0].params == {"bs": HOSTILE}
    assert builds(engine) == [(HOSTILE, 1)]


def test_writing_a_run_twice_stores_it_once(db_url):
    engine = open_db(db_url)
    info = _run()
    results = [example_result(), example_result(metric="usb.msc.write")]
    write_run(engine, info, results)
    write_run(engine, info, results)
    (back,) = history(engine, samples=True)
    assert len(back.results) == 2 and len(back.results[0].samples) == len(results[0].samples)


def test_a_run_being_written_is_invisible_to_readers_until_all_its_results_are_in(db_url, tmp_path):
    engine = open_db(db_url)
    info = _run()
    writer = RunWriter(engine, info, Spool(tmp_path / "spool.jsonl"))
    writer.begin()
    for metric in ("usb.msc.read", "usb.msc.write", "usb.msc.verify"):
        writer.add(example_result(metric=metric))
        assert runs_of_build(engine, "rc1") == [] and history(engine) == []
    info.finished, info.exit_status = "2026-11-28T04:00:00+00:00", 0  # as ResultStore.finish leaves it
    writer.finish()
    (run,) = runs_of_build(engine, "rc1")
    assert [r.metric for r in run.results] == ["usb.msc.read", "usb.msc.write", "usb.msc.verify"]
    assert (run.run.finished, run.run.exit_status) == ("2026-11-28T04:00:00+00:00", 0) and not (
        tmp_path / "spool.jsonl"
    ).exists()


def test_numpy_numbers_and_nan_are_stored_as_results_json_holds_them(db_url):
    engine = open_db(db_url)
    result = example_result()
    result.facts.notes["ratio"] = np.float64(0.25)
    result.efficiency = float("nan")
    write_run(engine, _run(), [result])
    (back,) = history(engine)
    assert back.results[0].facts.notes["ratio"] == 0.25 and back.results[0].efficiency is None
