"""The database failing: unreachable at start, stopped mid-run (then `hil db push`), a file that is no
database. Real PostgreSQL clusters and real files; nothing is mocked."""

from __future__ import annotations

import json
import shlex
import sqlite3

from hil.db.cli import main as db
from hil.db.engine import open_db
from hil.db.read import history, runs_by_id
from tests.db.postgres import PASSWORD, Cluster

RESULTS = """
import os, shlex, subprocess
import pytest
from hil.report.collect import attach
from hil.report.testing import example_result


@pytest.mark.parametrize("n", range(6))
def test_read(request, n):
    if n == 3 and os.environ.get("STOP_DATABASE"):
        subprocess.run(shlex.split(os.environ["STOP_DATABASE"]), check=True, capture_output=True)
    attach(request.node, example_result(params={"bs": "1M", "n": n}))
"""


def test_an_unreachable_postgresql_stops_the_run_before_any_test_naming_the_host_never_the_password(
    inner, pytester, pg_cluster
):
    pytester.makepyfile(test_perf=RESULTS)
    closed = pg_cluster.url("hil").replace(f":{pg_cluster.port}/", ":1/")  # nothing listens on port 1
    result = inner(f"--hil-db={closed}")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: results database: postgresql database 127.0.0.1:1/hil (user hil): *"])
    output = result.stdout.str() + result.stderr.str()
    assert PASSWORD not in output and "passed" not in output


def test_a_database_stopped_mid_run_spools_the_rest_and_push_delivers_it(inner, pytester, monkeypatch, capsys):
    cluster = Cluster()
    cluster.start()
    try:
        url = cluster.create_database("hil")
        pytester.makepyfile(test_perf=RESULTS)
        stop = shlex.join(cluster.stop_command())
        monkeypatch.setenv("STOP_DATABASE", stop)
        result = inner(f"--hil-db={url}")
        assert result.ret == 0, result.stdout.str()[-2000:]
        result.assert_outcomes(passed=6)  # the run went on
        stored = json.loads((pytester.path / "reports" / "results.json").read_text())
        assert len(stored["results"]) == 6  # results.json whole
        run_id = stored["run"]["id"]
        spooled = pytester.path / "reports" / "db-spool" / f"{run_id}.jsonl"
        assert spooled.is_file()
        said = f"*results database: *; this run is spooled to *{run_id}.jsonl: deliver it with `hil db push "
        result.stdout.fnmatch_lines([said + "--hil-reports reports` and this run's --hil-db (or HIL_DB)*"])

        cluster.start_again()
        engine = open_db(url)
        assert runs_by_id(engine, [run_id]) == []  # three results in, the run not complete: no reader sees it
        reports = str(pytester.path / "reports")
        # without its database: not pushed into a new local file, the spool kept, and no file left behind
        monkeypatch.delenv("HIL_DB", raising=False)
        capsys.readouterr()
        assert db(["--hil-reports", reports, "push"]) == 4
        assert spooled.is_file() and not (pytester.path / "reports" / "hil.db").exists()
        assert "hil.db: no such file: no run is stored there" in capsys.readouterr().err
        local = pytester.path / "local.db"
        open_db(f"sqlite:///{local}").dispose()
        assert db(["--hil-reports", reports, "push", "--hil-db", f"sqlite:///{local}"]) == 1  # another database
        said = f"{run_id}.jsonl: spooled for postgresql database 127.0.0.1:{cluster.port}/hil (user hil), not SQLite"
        assert said in capsys.readouterr().err and spooled.is_file()
        assert db(["push", "--hil-db", url, "--hil-reports", reports]) == 0  # the options after the command
        assert db(["--hil-db", url, "--hil-reports", reports, "push"]) == 0  # nothing left: nothing twice
        (run,) = runs_by_id(engine, [run_id])
        assert [r.params["n"] for r in run.results] == list(range(6)) and not spooled.exists()
        assert len(history(engine)) == 1
        engine.dispose()
    finally:
        cluster.remove()


def test_a_corrupt_sqlite_file_is_named_before_any_test(inner, pytester):
    pytester.makepyfile(test_perf=RESULTS)
    bad = pytester.path / "results.db"
    bad.write_bytes(b"\x00garbage" * 512)
    result = inner(f"--hil-db=sqlite:///{bad}")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        [f"ERROR: results database: SQLite file {bad}: cannot be opened: file is not a database"]
    )


def test_a_foreign_sqlite_database_is_refused(inner, pytester):
    pytester.makepyfile(test_perf=RESULTS)
    foreign = pytester.path / "other.db"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE invoices (id INTEGER)")
    result = inner(f"--hil-db=sqlite:///{foreign}")
    assert result.ret == 4
    result.stderr.fnmatch_lines([f"*SQLite file {foreign}: not a hil results database*"])


def test_upgrade_leaves_another_programs_sqlite_database_alone(tmp_path, capsys):
    """`hil db upgrade` added hil's tables into another program's SQLite file (issue 40)."""
    foreign = tmp_path / "other.db"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE invoices (id INTEGER)")
    assert db(["--hil-db", f"sqlite:///{foreign}", "upgrade"]) == 4
    assert f"SQLite file {foreign}: not a hil results database" in capsys.readouterr().err
    with sqlite3.connect(foreign) as connection:
        assert [row[0] for row in connection.execute("SELECT name FROM sqlite_master")] == ["invoices"]


def test_an_sqlite_file_uri_opens_without_a_lock_file_named_after_the_uri(tmp_path, monkeypatch):
    """SQLite's `file:` URI form: hil made a `file:<path>` folder in the working directory for it and its schema
    lock; such a URI is left to SQLite (which opens the path the URI names)."""
    monkeypatch.chdir(tmp_path)
    engine = open_db(f"sqlite:///file:{tmp_path / 'uri.db'}?uri=true")
    assert history(engine) == []
    assert (tmp_path / "uri.db").exists()
    assert not (tmp_path / "file:").exists()
