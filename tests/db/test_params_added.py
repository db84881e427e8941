"""Runs measured before a metric gained a parameter go on into its key (hil.catalogue.params_added): after `hil
db upgrade` the release gate, the trend and the baselines find them, and `hil db import` gives old results files
the parameter too; on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from hil.catalogue import CATALOGUE
from hil.catalogue.params_added import ADDED_PARAMS, FACT, completed_key
from hil.db import migrate
from hil.db.baselines import Baselines
from hil.db.cli import main as db
from hil.db.engine import engine_for, open_db
from hil.db.read import history, runs_by_id
from hil.db.schema import BaselineRow, Run
from hil.db.spool import Spool
from hil.db.write import RunWriter, write_run
from hil.records.store import ResultStore, RunInfo
from hil.report.compare import main as compare
from hil.report.testing import example_result
from hil.report.trend import series
from hil.verdict.result import metric_key

# A metric of each declared parameter, as results measured before it were stored, and what they gained since.
OLD = {"usb.resume.time": {}, "pcie.bar.store": {}, "nvme.seq1m_q32t1.read": {},
       "usb.uvc.fps": {"stream": "yuyv-640x480", "transfer": "iso1024"}}  # fmt: skip
GAINED = {"usb.resume.time": {"timing": "default"}, "pcie.bar.store": {"mapping": "device"},
          "nvme.seq1m_q32t1.read": {"target": "raw"},
          "usb.uvc.fps": {"streaming_interval": "1", "streaming_maxburst": "0"}}  # fmt: skip
OLD_KEYS = {metric: metric_key(metric, params) for metric, params in OLD.items()}
NEW_KEYS = {metric: metric_key(metric, {**OLD[metric], **params}) for metric, params in GAINED.items()}
UNCHANGED = "usb.msc.read[bs=1M]"  # a metric that gained nothing
REFERENCE_RUNS = [[41.2, 41.9, 40.8, 41.5, 42.0, 41.1], [40.1, 40.6, 40.9, 40.3, 40.7, 40.2],
                  [42.3, 42.0, 41.8, 42.6, 42.1, 41.9]]  # fmt: skip
CANDIDATE = [41.3, 41.0, 41.8, 41.6, 40.9, 41.4]


def _run(build: str) -> RunInfo:
    return RunInfo.start("pytest testcases", build={"name": build, "version": "1"})


def _old_results(values):
    return [example_result(metric=metric, params=params, values=values) for metric, params in OLD.items()] + [
        example_result(values=values)
    ]


def _old_run(engine, values, spool_dir) -> RunInfo:
    """A run as the hil before the parameters wrote it: live, through the run writer."""
    info = _run("rc0")
    writer = RunWriter(engine, info, Spool(spool_dir / f"{info.id}.jsonl"))
    writer.begin()
    for result in _old_results(values):
        writer.add(result)
    writer.finish()
    assert writer.failure is None
    return info


@pytest.mark.parametrize("revision", ["0002", "0003"])  # before the first parameters, and before the UVC ones
def test_runs_measured_before_a_parameter_existed_go_on_into_its_key_after_hil_db_upgrade(db_url, tmp_path, revision):
    engine = engine_for(db_url)
    migrate.upgrade(engine, revision)
    old = [_old_run(engine, values, tmp_path) for values in REFERENCE_RUNS]
    Baselines(engine).update_all(runs_by_id(engine, [old[-1].id])[0].results, old[-1].id)
    engine.dispose()
    assert db(["--hil-db", db_url, "upgrade"]) == 0
    engine = open_db(db_url, create=False)
    results = [
        example_result(metric=metric, params={**OLD[metric], **params}, values=CANDIDATE)
        for metric, params in GAINED.items()
    ]
    write_run(engine, _run("rc1"), [*results, example_result(values=CANDIDATE)])

    assert compare(["rc0", "rc1", "--hil-db", db_url, "--json", str(tmp_path / "gate.json")]) == 0
    gate = json.loads((tmp_path / "gate.json").read_text())
    assert {row["key"]: (row["gate"], row["reference_runs"]) for row in gate["rows"]} == {
        key: ("PASS", 3) for key in [*NEW_KEYS.values(), UNCHANGED]
    }
    stored = history(engine)
    assert {key: len(points) for key, points in series(stored)["vboard-hs"].items()} == {
        key: 4 for key in [*NEW_KEYS.values(), UNCHANGED]
    }
    assert sorted(Baselines(engine).load("vboard-hs").metrics) == sorted([*NEW_KEYS.values(), UNCHANGED])
    (first,) = [run for run in stored if run.run.id == old[0].id]
    facts = {result.metric: result.facts.to_dict().get(FACT) for result in first.results}
    assert facts == {"usb.resume.time": "timing=default", "pcie.bar.store": "mapping=device",
                     "nvme.seq1m_q32t1.read": "target=raw", "usb.uvc.fps": "streaming_interval=1, streaming_maxburst=0",
                     "usb.msc.read": None}  # fmt: skip
    with engine.connect() as connection:
        bands = connection.scalar(select(Run.inventory_bands).where(Run.id == old[0].id))
        assert sorted(bands["vboard-hs"]) == sorted([*NEW_KEYS.values(), UNCHANGED])
        assert connection.scalar(
            select(BaselineRow.result_id).where(BaselineRow.params_key == NEW_KEYS["nvme.seq1m_q32t1.read"])
        )
    engine.dispose()


def test_hil_db_import_gives_old_results_the_parameters(db_url, tmp_path):
    info = _run("rc0")
    info.id = "old"
    store = ResultStore(tmp_path / "history" / "old.json", info)
    for result in _old_results(REFERENCE_RUNS[0]):
        store.add(result)
    assert db(["--hil-db", db_url, "import", str(tmp_path / "history")]) == 0
    engine = open_db(db_url, create=False)
    (stored,) = history(engine)
    assert [metric_key(r.metric, r.params) for r in stored.results] == [*NEW_KEYS.values(), UNCHANGED]
    assert [r.facts.to_dict().get(FACT) for r in stored.results] == [
        "timing=default",
        "mapping=device",
        "target=raw",
        "streaming_interval=1, streaming_maxburst=0",
        None,
    ]
    engine.dispose()


def test_a_run_an_earlier_hil_spooled_is_pushed_with_the_parameters(db_url, tmp_path):
    info = _run("rc0")
    spool = Spool(tmp_path / "db-spool" / f"{info.id}.jsonl")
    spool.append({"run": info.to_dict()})
    for ordinal, result in enumerate(_old_results(REFERENCE_RUNS[0])):
        spool.append({"ordinal": ordinal, "result": result.to_dict()})
    spool.append({"finish": info.to_dict(), "result_count": len(GAINED) + 1})
    open_db(db_url).dispose()  # the database the run started in (push makes none)
    assert db(["--hil-db", db_url, "--hil-reports", str(tmp_path), "push"]) == 0
    engine = open_db(db_url, create=False)
    (stored,) = history(engine)
    assert [metric_key(r.metric, r.params) for r in stored.results] == [*NEW_KEYS.values(), UNCHANGED]
    engine.dispose()


def test_every_declared_metric_is_in_the_catalogue_and_only_an_old_key_changes():
    assert all(metric in CATALOGUE.metrics for added in ADDED_PARAMS for metric in added.metrics)
    assert completed_key("usb.resume.time") == "usb.resume.time[timing=default]"
    assert completed_key("usb.resume.time[timing=minimum]") == "usb.resume.time[timing=minimum]"
    assert completed_key(UNCHANGED) == UNCHANGED
    # The UVC service settings are the isochronous endpoint's: a bulk case never had them, and gains nothing.
    assert completed_key(OLD_KEYS["usb.uvc.fps"]) == NEW_KEYS["usb.uvc.fps"]
    bulk = "usb.uvc.dropped[stream=yuyv-640x480,transfer=bulk]"
    assert completed_key(bulk) == bulk
    measured = "usb.uvc.corrupt[stream=yuyv-640x480,streaming_interval=4,streaming_maxburst=0,transfer=iso3072]"
    assert completed_key(measured) == measured
