"""Runs written to and read back from the results database, the same tests on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pytest

from hil.db.cli import main as db
from hil.db.engine import DatabaseError, open_db
from hil.db.read import all_runs, builds, history, runs_of_build
from hil.db.spool import Spool
from hil.db.write import RunWriter, StoredRunConflict, finish_run, insert_run, push, write_run
from hil.records.store import ResultStore, RunInfo
from hil.report.testing import example_result
from hil.verdict.result import Verdict
from hil.verdict.spec import Band

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


def test_every_field_of_a_run_has_its_column():
    """RunInfo is where a run's fields are declared: a field added there without a column (and a migration) fails
    here, not as a run that reads back without it."""
    from hil.db.convert import RUN_FIELDS_AS_IS
    from hil.db.schema import Run

    columns = set(Run.__table__.columns.keys())
    assert set(RUN_FIELDS_AS_IS) <= columns, set(RUN_FIELDS_AS_IS) - columns
    assert {"started", "finished", "inventory_path", "inventory_sha256", "build_name"} <= columns
    assert {f.name for f in dataclasses.fields(RunInfo)} == {*RUN_FIELDS_AS_IS, "started", "finished", "inventory"}


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


def _results_file(path, info: RunInfo, results) -> None:
    store = ResultStore(path, info)
    for result in results:
        store.add(result)


def test_an_import_under_a_stored_runs_id_is_refused_and_the_stored_run_is_unchanged(db_url, tmp_path, capsys):
    """The reference's run, then a results file under its id with build `cand` and half the rate: before, import
    skipped the stored rows and relabelled the reference as `cand` (and `hil compare ref cand` PASSed the drop)."""
    engine = open_db(db_url)
    reference = _run("ref")
    write_run(engine, reference, [example_result(values=[40.0, 41.0, 40.5])])
    forged = _run("cand")
    forged.id = reference.id
    _results_file(tmp_path / "forged.json", forged, [example_result(Verdict.FAIL, values=[20.0, 20.5, 20.2])])
    assert db(["--hil-db", db_url, "import", str(tmp_path / "forged.json")]) == 1
    said = capsys.readouterr().err
    assert f"skipped {tmp_path / 'forged.json'}: run {reference.id} is stored already with other content" in said
    assert "build 'ref', 1 results; this one: build 'cand', 1 results" in said
    (stored,) = history(engine, samples=True)
    assert stored.run.build["name"] == "ref" and stored.results[0].values == [40.0, 41.0, 40.5]

    # The same run again (its own file imported twice) writes nothing and says so.
    _results_file(tmp_path / "again.json", reference, [example_result(values=[40.0, 41.0, 40.5])])
    assert db(["--hil-db", db_url, "import", str(tmp_path / "again.json")]) == 0
    assert f"run {reference.id} is stored already, the same: nothing written" in capsys.readouterr().out
    engine.dispose()


def test_a_run_id_that_is_no_file_name_is_never_stored_nor_exported_outside_the_folder(db_url, tmp_path, capsys):
    engine = open_db(db_url)
    for hostile in ("../../x", "/etc/x", "a/b", ".."):
        info = _run()
        info.id = hostile
        with pytest.raises(DatabaseError, match="not a run id"):
            write_run(engine, info, [example_result()])
    with engine.begin() as connection:  # one stored by an older hil, which did not check
        info = _run()
        info.id = "../escaped"
        insert_run(connection, info)
        finish_run(connection, info, 0, {})
    out = tmp_path / "export"
    out.mkdir()
    assert db(["--hil-db", db_url, "export", str(out)]) == 1
    assert "skipped run id '../escaped': not a run id" in capsys.readouterr().err
    assert not (tmp_path / "escaped.json").exists() and list(out.iterdir()) == []
    engine.dispose()


def test_a_spool_under_a_complete_stored_runs_id_is_delivered_once_or_refused(db_url, tmp_path):
    engine = open_db(db_url)
    reference = _run("ref")
    write_run(engine, reference, [example_result(values=[40.0, 41.0])])
    for name, values, build, verdict in (
        ("same", [40.0, 41.0], "ref", Verdict.PASS),
        ("other", [20.0, 20.5], "cand", Verdict.FAIL),
    ):
        spooled = _run(build)
        spooled.id = reference.id
        spool = Spool(tmp_path / f"{name}.jsonl")
        spool.append({"run": spooled.to_dict()})
        spool.append({"ordinal": 0, "result": example_result(verdict, values=values).to_dict()})
        spool.append({"finish": spooled.to_dict(), "result_count": 1})
        if name == "same":
            assert push(engine, spool.path).id == reference.id and not spool.path.exists()  # nothing twice
        else:
            with pytest.raises(StoredRunConflict, match=r"stored already with other content \(build 'ref'"):
                push(engine, spool.path)
            assert spool.path.exists()  # kept: nothing lost
    (stored,) = history(engine, samples=True)
    assert stored.run.build["name"] == "ref" and stored.results[0].values == [40.0, 41.0]
    engine.dispose()


def test_a_spool_that_is_no_regular_file_is_named_and_the_others_pushed(tmp_path, capsys):
    """A FIFO named *.jsonl hung `hil db push`, a symlink to /dev/zero was a MemoryError (issue 40)."""
    url = f"sqlite:///{tmp_path / 'hil.db'}"
    open_db(url).dispose()
    spool_dir = tmp_path / "db-spool"
    spool_dir.mkdir()
    os.mkfifo(spool_dir / "a-fifo.jsonl")
    (spool_dir / "b-zero.jsonl").symlink_to("/dev/zero")
    good = _run("ref")
    spool = Spool(spool_dir / f"{good.id}.jsonl")
    spool.append({"run": good.to_dict(), "database": f"SQLite file {tmp_path / 'hil.db'}"})
    spool.append({"ordinal": 0, "result": example_result(values=[40.0, 41.0]).to_dict()})
    spool.append({"finish": good.to_dict(), "result_count": 1})
    assert db(["--hil-db", url, "--hil-reports", str(tmp_path), "push"]) == 1
    said = capsys.readouterr()
    assert "a-fifo.jsonl: a device, FIFO or socket, not a regular file" in said.err
    assert "b-zero.jsonl: a device, FIFO or socket, not a regular file" in said.err
    assert f"pushed run {good.id}" in said.out and not spool.path.exists()


@pytest.mark.parametrize(
    ("values", "said"),
    [
        ([20.0, 20.5, 20.2], "stored PASS, its samples give FAIL: too slow"),
        (
            [40.0, 41.0, 60.0],
            "stored PASS, its samples give ERROR: the highest sample (60 MB/s) is above the physical ceiling 53",
        ),
    ],
    ids=["outside its band", "above its ceiling"],
)
def test_a_file_whose_figures_contradict_its_verdict_is_not_imported(db_url, tmp_path, capsys, values, said):
    """A candidate whose samples were all 1e308 MB/s against its band, stored as PASS, imported and `hil compare`
    said PASS (issue 40; such numbers are refused when the file is read now): a file's verdict is checked against
    its own samples, band and ceiling, and half the reference's rate claimed as PASS is not stored."""
    engine = open_db(db_url)
    forged = example_result(values=values, band=Band(38.0, 48.0))
    _results_file(tmp_path / "forged.json", _run("cand"), [forged])
    assert db(["--hil-db", db_url, "import", str(tmp_path / "forged.json")]) == 1
    assert said in capsys.readouterr().err and history(engine) == []
    engine.dispose()


def test_a_summary_that_is_not_its_samples_is_not_imported(db_url, tmp_path, capsys):
    engine = open_db(db_url)
    result = example_result(values=[40.0, 41.0, 42.0])
    result.stats = dataclasses.replace(result.stats, median=45.0)
    _results_file(tmp_path / "forged.json", _run("cand"), [result])
    assert db(["--hil-db", db_url, "import", str(tmp_path / "forged.json")]) == 1
    assert "its summary (n 3, median 45, cv 0.0243902) is not its samples'" in capsys.readouterr().err
    bare = example_result(values=[])  # a summary with no samples under it at all
    bare.stats = result.stats
    _results_file(tmp_path / "bare.json", _run("cand"), [bare])
    assert db(["--hil-db", db_url, "import", str(tmp_path / "bare.json")]) == 1
    assert "its summary (n 3, median 45, cv 0.0243902) is not its samples'" in capsys.readouterr().err
    engine.dispose()
