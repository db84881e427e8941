import json
import os
import signal
import subprocess
import sys
import time

import pytest

from hil.records.store import SCHEMA, ResultsFileError, ResultStore, RunInfo, load_run
from hil.report.testing import example_result
from hil.verdict.result import Verdict


@pytest.fixture
def store(tmp_path):
    return ResultStore(tmp_path / "results.json", RunInfo.start("pytest -k x"))


def test_document_layout(store):
    store.begin()
    data = json.loads(store.path.read_text())
    assert data["schema"] == SCHEMA
    assert set(data["run"]) >= {"id", "started", "finished", "hil_version", "host", "command"}
    assert data["run"]["finished"] is None
    assert data["run"]["command"] == "pytest -k x"
    assert "hostname" in data["run"]["host"]
    # the versions of the Debian packages that measure, as dpkg has them (hil's set-up installed them here)
    packages = data["run"]["host"]["debian_packages"]
    assert {"lrzsz", "fio", "iperf3", "qemu-system-x86"} <= packages.keys(), packages
    assert all(version and " " not in version for version in packages.values())
    assert data["results"] == []


def test_every_add_rewrites_a_complete_file(store):
    store.begin()
    for count, verdict in enumerate([Verdict.PASS, Verdict.FAIL, Verdict.ERROR], start=1):
        store.add(example_result(verdict, params={"n": count}))
        stored = load_run(store.path)
        assert [r.verdict for r in stored.results][-1] is verdict
        assert len(stored.results) == count
    store.finish()
    assert load_run(store.path).run.finished is not None


def test_round_trip_keeps_the_result(store):
    result = example_result(Verdict.REGRESSION, baseline_median=45.0, error_output="raw\x00 output")
    store.add(result)
    assert load_run(store.path).results[0].to_dict() == result.to_dict()


def test_crash_during_a_write_keeps_the_previous_complete_file(store, monkeypatch):
    store.add(example_result(Verdict.PASS))
    before = store.path.read_text()

    def power_cut(fd):
        raise OSError("simulated crash before the data reached the disk")

    monkeypatch.setattr(os, "fsync", power_cut)
    with pytest.raises(OSError, match="simulated crash"):
        store.add(example_result(Verdict.FAIL))
    monkeypatch.undo()
    assert store.path.read_text() == before
    assert len(load_run(store.path).results) == 1
    assert sorted(p.name for p in store.path.parent.iterdir()) == ["results.json"]  # no .tmp


_WRITER = """
import sys
from pathlib import Path
from hil.records.store import ResultStore, RunInfo
from hil.report.testing import example_result
store = ResultStore(Path(sys.argv[1]), RunInfo.start("writer"))
store.begin()
while True:
    store.add(example_result(error_output="x" * 20000))  # big enough that a write takes a while
"""


def test_killed_writer_leaves_a_parseable_file(tmp_path):
    # The real thing: SIGKILL at an arbitrary instant of a busy write loop.
    path = tmp_path / "results.json"
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)])
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if path.exists() and len(load_run(path).results) >= 3:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the writer produced no results")
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    assert len(load_run(path).results) >= 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"schema": 1, "run": {', "not valid JSON"),
        ("[]", "expected a JSON object"),
        ('{"schema": 2, "run": {}, "results": []}', "schema 2 is not the supported 1"),
        ('{"schema": 1, "results": []}', "'run' is missing"),
        ('{"schema": 1, "run": {"id": "r"}, "results": []}', "run:"),
    ],
)
def test_loading_names_the_broken_file(tmp_path, text, message):
    path = tmp_path / "broken.json"
    path.write_text(text)
    with pytest.raises(ResultsFileError, match=message) as info:
        load_run(path)
    assert str(info.value).startswith(str(path))


def test_loading_names_the_broken_result(store):
    store.add(example_result())
    data = json.loads(store.path.read_text())
    del data["results"][0]["band"]
    store.path.write_text(json.dumps(data))
    with pytest.raises(ResultsFileError, match=r"result #0 \(usb\.msc\.read\): KeyError"):
        load_run(store.path)


def test_missing_file_is_an_error(tmp_path):
    with pytest.raises(ResultsFileError, match="cannot read"):
        load_run(tmp_path / "nope.json")


def test_a_password_in_the_command_is_never_stored():
    # `--hil-db postgresql://USER:PASSWORD@HOST/DB` as the docs write it, and a results file of an older hil
    started = RunInfo.start(command="pytest testcases --hil-db postgresql://hil:s3cr%40t@db.lab/hil -x")
    assert started.command == "pytest testcases --hil-db postgresql://hil:***@db.lab/hil -x"
    old = RunInfo.from_dict({**started.to_dict(), "command": "hil run --hil-db=postgresql://hil:s3cret@db/hil"})
    assert old.command == "hil run --hil-db=postgresql://hil:***@db/hil"
    for given, kept in {  # a / or an @ in it, no user, a password= parameter
        "postgresql://hil:pa/ss@db/hil": "postgresql://hil:***@db/hil",
        "postgresql://hil:p@ss@db/hil": "postgresql://hil:***@db/hil",
        "postgresql://:pw@db/hil": "postgresql://:***@db/hil",
        "postgresql://db/hil?user=hil&password=pw&sslmode=require": "postgresql://db/hil?user=hil&password=***&sslmode=require",
        "postgresql:///hil?PASSWORD=pw x": "postgresql:///hil?PASSWORD=*** x",
        "http://pdu:80/outlet/1": "http://pdu:80/outlet/1",
    }.items():
        assert RunInfo.start(command=f"hil run --hil-db {given}").command == f"hil run --hil-db {kept}"
