"""Two runs that start at once in one workspace (a user's two terminals, pytest-xdist's workers running
`pytest --help`) both open the default SQLite file before it has a schema: one makes it, the other waits and
finds it made. Before the schema lock, 20 of 20 such starts had one process fail with "table alembic_version
already exists"."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys

from sqlalchemy import text

from hil.db import migrate
from hil.db.engine import open_db


def _open(url: str) -> str | None:
    engine = open_db(url)
    try:
        return migrate.current(engine)
    finally:
        engine.dispose()


def test_processes_that_open_a_new_database_at_once_all_get_its_schema(tmp_path):
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        for attempt in range(20):
            url = f"sqlite:///{tmp_path / f'hil-{attempt}.db'}"
            assert pool.map(_open, [url] * 4) == [migrate.HEAD] * 4


def test_a_run_that_opens_and_closes_the_database_leaves_another_runs_open_connection_whole(tmp_path):
    """Two runs in one folder: one keeps the database open (a long suite), the other opens and closes it. The
    schema lock was an flock on the database file, and closing it dropped SQLite's locks of the long run: the
    short one, seeing itself the last user, checkpointed and deleted the WAL files under it (reproduced: 55 of
    74 runs of two such processes ended "database disk image is malformed")."""
    url = f"sqlite:///{tmp_path / 'hil.db'}"
    long_run = open_db(url)
    try:
        with long_run.begin() as connection:
            connection.execute(text("select count(*) from runs")).all()
        short_run = f"from hil.db.engine import open_db; open_db({url!r}).dispose()"
        subprocess.run([sys.executable, "-c", short_run], check=True, timeout=120)
        assert (tmp_path / "hil.db-wal").exists() and (tmp_path / "hil.db-shm").exists()
        with long_run.begin() as connection:
            assert connection.execute(text("pragma integrity_check")).scalar() == "ok"
    finally:
        long_run.dispose()
