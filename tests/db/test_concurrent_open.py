"""Two runs that start at once in one workspace (a user's two terminals, pytest-xdist's workers running
`pytest --help`) both open the default SQLite file before it has a schema: one makes it, the other waits and
finds it made. Before the schema lock, 20 of 20 such starts had one process fail with "table alembic_version
already exists"."""

from __future__ import annotations

import multiprocessing

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
            assert pool.map(_open, [url] * 4) == [migrate.head()] * 4
