"""Issue 40: no import or push changes a stored run or stops on a wrongly typed field, and no stored verdict is
taken over its own samples (import, push, `hil compare`). SQLite: the rules are hil's, not the database's."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

from hil.db.cli import main as db
from hil.db.engine import open_db
from hil.db.read import all_runs, is_complete
from hil.db.spool import Spool
from hil.db.write import write_run
from hil.records.store import RunInfo, document
from hil.report.compare import main as compare
from hil.report.testing import example_result
from hil.verdict.result import Verdict

RATE = [41.2, 41.0, 41.5, 40.8]  # MB/s: inside the example band [38, 48], under its 53 MB/s ceiling, CV 0.7%


def _info(run_id: str, build: str) -> RunInfo:
    return RunInfo(id=run_id, started="2026-12-01T03:00:00+00:00", build={"name": build, "version": "1"})


def _spool(reports, info: RunInfo, results, finish: RunInfo | None = None) -> Spool:
    spool = Spool(reports / "db-spool" / f"{info.id}.jsonl")
    spool.append({"run": info.to_dict()})
    for ordinal, result in enumerate(results):
        spool.append({"ordinal": ordinal, "result": result.to_dict()})
    if finish is not None:
        spool.append({"finish": finish.to_dict(), "result_count": len(results)})
    return spool


def _stored(url: str) -> dict[str, tuple[str, bool, list[float]]]:
    engine = open_db(url)
    found = {
        s.run.id: (s.run.build["name"], is_complete(engine, s.run.id), s.results[0].values) for s in all_runs(engine)
    }
    engine.dispose()
    return found


@pytest.fixture
def url(tmp_path) -> str:
    found = f"sqlite:///{tmp_path / 'hil.db'}"
    open_db(found).dispose()
    return found


def test_a_push_never_changes_a_stored_run(url, tmp_path, capsys):
    """A spool pushed without its finish record left run-inc stored incomplete as build ref; another spool of that
    id (build cand, half the rate) relabelled it cand and complete with ref's figures, and a spool whose finish
    record named run victim finished victim as cand: `hil compare ref cand` passed (audit of issue 40)."""
    reports = tmp_path / "reports"
    push = ["--hil-db", url, "--hil-reports", str(reports), "push"]
    _spool(reports, _info("run-inc", "ref"), [example_result(values=RATE)])
    _spool(reports, _info("victim", "ref"), [example_result(values=RATE)])
    assert db(push) == 0
    half = [example_result(Verdict.FAIL, values=[v / 2 for v in RATE])]
    other = _spool(reports, _info("run-inc", "cand"), half, finish=_info("run-inc", "cand"))
    evil = _spool(reports, _info("evil", "cand"), half, finish=_info("victim", "cand"))
    assert db(push) == 1
    said = capsys.readouterr().err
    assert "run run-inc is stored already with other content (build 'ref', 1 results; this one: build 'cand'" in said
    assert f"{evil.path}: its finish record is of run victim" in said and "a spool finishes its own run only" in said
    assert other.path.exists() and evil.path.exists()  # kept
    assert _stored(url) == {"run-inc": ("ref", False, RATE), "victim": ("ref", False, RATE)}
    for spool in (other, evil):
        spool.path.unlink()
    _spool(reports, _info("run-inc", "ref"), [example_result(values=RATE)], finish=_info("run-inc", "ref"))
    assert db(push) == 0 and _stored(url)["run-inc"] == ("ref", True, RATE)  # its own rest: delivered


FORGED = {  # stored as PASS without `hil db import`'s check (an older hil's, a row written by hand)
    "samples of 1e308": ([1e308] * 4, "INCOMPLETE", "stored PASS, its samples give ERROR"),
    "a CV of 17%": ([30.0, 45.0, 47.0, 40.0], "INCOMPLETE", "stored PASS, its samples give UNSTABLE: unstable: CV"),
    "half the rate": ([v / 2 for v in RATE], "BLOCKED", "band: stored PASS, its samples give FAIL: too slow"),
}


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # numpy's, summing 1e308s
@pytest.mark.parametrize(("values", "gate", "said"), FORGED.values(), ids=FORGED.keys())
def test_the_release_gate_judges_a_stored_pass_by_its_samples(url, tmp_path, values, gate, said):
    engine = open_db(url)
    for number in (1, 2):
        write_run(
            engine, _info(f"ref-{number}", "ref"), [example_result(values=[v * (1 + number / 100) for v in RATE])]
        )
    write_run(engine, _info("cand-1", "cand"), [example_result(values=values)])
    engine.dispose()
    exit_status = compare(["ref", "cand", "--hil-db", url, "--json", str(tmp_path / "gate.json")])
    (row,) = json.loads((tmp_path / "gate.json").read_text())["rows"]
    assert (exit_status, row["gate"]) == ({"BLOCKED": 1, "INCOMPLETE": 6}[gate], gate) and said in row["why"], row


def _file(path, info: RunInfo, results, **changed) -> None:
    """A results.json of `info` and `results`; `changed`: "run.<field>" or "result.<field>" (the first) set."""
    data = document(info, results)
    for name, value in changed.items():
        part, _, field = name.partition("__")
        (data["run"] if part == "run" else data["results"][0])[field] = value
    path.write_text(json.dumps(data))


def test_an_import_refuses_a_verdict_its_samples_do_not_give_and_any_baseline_file(url, tmp_path, capsys):
    files = tmp_path / "import"
    files.mkdir()
    unstable = example_result(values=[30.0, 45.0, 47.0, 40.0])
    _file(
        files / "cv-claimed.json",
        _info("cv-claimed", "cand"),
        [unstable],
        result__stats={**asdict(unstable.stats), "cv": 0.007},
    )
    _file(files / "cv.json", _info("cv", "cand"), [unstable])
    _file(files / "no-band.json", _info("no-band", "cand"), [example_result(values=RATE)], result__band=None)
    _file(files / "good.json", _info("good", "cand"), [example_result(values=RATE)])
    baseline = {"unit": "MB/s", "runs": [{"run": "old", "samples": [20.0, 20.0, 20.0], "median": 1e300}]}
    metrics = {"usb.msc.read[bs=1M]": baseline}
    (files / "vboard-hs.json").write_text(
        json.dumps({"board": "vboard-hs", "created": "2026-11-01", "metrics": metrics})
    )
    assert db(["--hil-db", url, "import", str(files)]) == 1
    said = capsys.readouterr().err
    assert "cv-claimed.json: vboard-hs usb.msc.read[bs=1M]: its summary (n 4, median 42.5, cv 0.007)" in said
    assert "cv.json: vboard-hs usb.msc.read[bs=1M]: stored PASS, its samples give UNSTABLE" in said
    assert "no-band.json: vboard-hs usb.msc.read[bs=1M]: stored PASS, its samples give INFO: no band" in said
    assert "vboard-hs.json: a baseline file of hil before the results database: not imported" in said  # any median
    assert list(_stored(url)) == ["good"]


WRONGLY_TYPED = {
    "build": {"run__build": ["rc1"]},
    "inventory": {"run__inventory": "boards.yaml"},
    "host": {"run__host": 7},
    "ceiling": {"result__ceiling": []},
    "stats": {"result__stats": [1, 2]},
    "a sample": {"result__samples": [[41.0]]},
}


def test_wrongly_typed_fields_are_named_and_skipped_the_other_files_imported_and_pushed(url, tmp_path, capsys):
    files, reports = tmp_path / "import", tmp_path / "reports"
    files.mkdir()
    for name, changed in WRONGLY_TYPED.items():
        _file(files / f"{name}.json", _info(f"bad-{name}", "rc1"), [example_result(values=RATE)], **changed)
    _file(files / "good.json", _info("good", "rc1"), [example_result(values=RATE)])
    assert db(["--hil-db", url, "import", str(files)]) == 1
    said = capsys.readouterr().err
    assert all(f"{files / name}.json: " in said for name in WRONGLY_TYPED), said
    assert "'build' must be a JSON object, not list" in said and "'ceiling' must be a JSON object, not list" in said
    far = _spool(reports, _info("far", "rc1"), [example_result(values=RATE)], finish=_info("far", "rc1"))
    far.path.write_text(far.path.read_text().replace('"ordinal": 0', f'"ordinal": {10**30}'))
    typed = _spool(reports, _info("typed", "rc1"), [example_result(values=RATE)])
    typed.path.write_text(
        typed.path.read_text().replace('"build": {"name": "rc1", "version": "1"}', '"build": 1') + "\n{}\n"
    )
    _spool(reports, _info("pushed", "rc1"), [example_result(values=RATE)], finish=_info("pushed", "rc1"))
    assert db(["--hil-db", url, "--hil-reports", str(reports), "push"]) == 1
    said = capsys.readouterr().err
    assert f"{far.path}: not storable: " in said and f"{typed.path}: line 1: TypeError: 'build' must be" in said
    assert far.path.exists() and typed.path.exists() and sorted(_stored(url)) == ["good", "pushed"]


def test_names_beyond_their_column_or_not_printable_are_named_and_skipped_by_import_and_push(url, tmp_path, capsys):
    """A 400-character pair or a build name with a line break: PostgreSQL's columns refuse the one (255 at most),
    SQLite would store both; import and push refuse them alike, the other files still go in."""
    files, reports = tmp_path / "import", tmp_path / "reports"
    files.mkdir()
    _file(files / "long.json", _info("long", "rc1"), [example_result(board="b" * 400, values=RATE)])
    _file(files / "broken.json", _info("broken", "rc1\nDROP"), [example_result(values=RATE)])
    _file(files / "good.json", _info("good", "rc1"), [example_result(values=RATE)])
    assert db(["--hil-db", url, "import", str(files)]) == 1
    said = capsys.readouterr().err
    assert f"{files / 'long.json'}: board '{'b' * 60}...': not a name (printable, 255 at most)" in said, said
    assert f"{files / 'broken.json'}: build_name 'rc1\\nDROP': not a name" in said, said
    unit = _spool(reports, _info("unit", "rc1"), [example_result(values=RATE, unit="MB/s" * 20)])
    assert db(["--hil-db", url, "--hil-reports", str(reports), "push"]) == 1
    assert f"{unit.path}: unit 'MB/s" in capsys.readouterr().err and unit.path.exists()
    assert sorted(_stored(url)) == ["good"]
