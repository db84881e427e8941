"""Two builds of the Jenkins job at once, on two agents: two pytest processes with hil's report plugin, each
its own build, run and reports directory, writing into one PostgreSQL (HIL_DB, as the Jenkinsfile hands it)
while both are measuring. Both runs land once, complete, with every result once; the empty database gets its
schema from whichever starts first."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from sqlalchemy import func, select

import hil
from hil.db.cli import main as db_main
from hil.db.engine import open_db
from hil.db.read import runs_of_build
from hil.db.schema import Result, Run
from tests.dashboard.conftest import Server
from tests.db.postgres import PASSWORD
from tests.db.writers import open_at_once

RESULTS = 60  # per build
HIL = Path(hil.__file__).parents[1]  # this checkout's hil in the builds' processes

CONFTEST = """
from hil.report.pytest_report import RUN_IDENTITY

def pytest_configure(config):
    config.stash[RUN_IDENTITY] = {"build": {"name": "{build}", "version": "1", "images": {}}}
"""

TESTS = """
import time
from pathlib import Path

import pytest
from hil.report.collect import attach
from hil.report.testing import example_result


@pytest.mark.parametrize("n", range({results}))
def test_read(request, n):
    if n == 0:  # both builds are measuring before either writes a result
        Path("../{me}.ready").touch()
        deadline = time.monotonic() + 120
        while not Path("../{other}.ready").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    attach(request.node, example_result(board="{board}", params={"bs": "1M", "n": n}))
"""


def _build(tmp_path, build: str, other: str, board: str, url: str) -> subprocess.Popen:
    workspace = tmp_path / build
    workspace.mkdir()
    (workspace / "conftest.py").write_text(CONFTEST.replace("{build}", build))
    tests = TESTS.replace("{results}", str(RESULTS)).replace("{me}", build).replace("{other}", other)
    (workspace / "test_suite.py").write_text(textwrap.dedent(tests.replace("{board}", board)))
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(HIL)}
    command = [sys.executable, "-m", "pytest", "-p", "hil_report", "-p", "no:cacheprovider", "-q", "test_suite.py"]
    if build == "release-3":  # the database on the command line, as docs/results-db.md writes it
        command += ["--hil-db", url]
    else:
        env["HIL_DB"] = url
    return subprocess.Popen(
        command, cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def test_two_builds_at_once_land_in_one_postgresql_without_a_lost_or_duplicated_run(tmp_path, pg_url):
    builds = {
        "nightly-17": _build(tmp_path, "nightly-17", "release-3", "imx8-hs", pg_url),
        "release-3": _build(tmp_path, "release-3", "nightly-17", "rk3588-ss", pg_url),
    }
    outputs = {}
    for build, process in builds.items():
        outputs[build], _ = process.communicate(timeout=300)
        assert process.returncode == 0, f"{build}:\n{outputs[build]}"
    engine = open_db(pg_url, create=False)
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(Run)) == 2
        assert connection.scalar(select(func.count()).select_from(Result)) == 2 * RESULTS
        distinct = select(Result.run_id, Result.ordinal).distinct().subquery()
        assert connection.scalar(select(func.count()).select_from(distinct)) == 2 * RESULTS
    for build, board in (("nightly-17", "imx8-hs"), ("release-3", "rk3588-ss")):
        (run,) = runs_of_build(engine, build)  # complete, and once
        assert [(r.board, r.params["n"]) for r in run.results] == [(board, n) for n in range(RESULTS)]
        assert not list((tmp_path / build / "reports").glob("db-spool/*"))  # nothing left undelivered
        # the password is in no stored command, no results.json
        stored = run.run.command + (tmp_path / build / "reports" / "results.json").read_text()
        assert "DROP" not in stored and PASSWORD not in stored, stored
    assert "--hil-db 'postgresql://hil:***@127.0.0.1:" in runs_of_build(engine, "release-3")[0].run.command
    # nor in any output of the runs: their consoles, every file they wrote, an export, the dashboard's run pages
    assert db_main(["--hil-db", pg_url, "export", str(tmp_path / "export")]) == 0
    server = Server(tmp_path / "release-3" / "reports", db_url=pg_url)
    try:
        pages = [server.get(f"/run/{runs_of_build(engine, build)[0].run.id}") for build in builds]
    finally:
        server.stop()
    engine.dispose()
    assert [status for status, _, _ in pages] == [200, 200] and "hil:***@127.0.0.1" in pages[1][1]
    written = [path.read_text(errors="replace") for path in tmp_path.rglob("*") if path.is_file()]
    assert len(written) > 4  # each build's results.json and log, the export's two runs
    for shown in [*outputs.values(), *written, *(page for _, page, _ in pages)]:
        assert PASSWORD not in shown


def test_builds_starting_at_once_on_an_empty_database_both_get_its_schema(pg_cluster):
    """Before the migration took a lock, one of two such builds failed (duplicate key in pg_type) 2 times in 3."""
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager, context.Pool(2) as pool:
        for attempt in range(3):
            url = pg_cluster.create_database(f"hil_at_once_{attempt}")
            assert pool.starmap(open_at_once, [(url, manager.Barrier(2))] * 2) == ["opened", "opened"]
