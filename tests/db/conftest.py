"""The storage tests run on both databases: an SQLite file and a real PostgreSQL 15 started for the session."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from tests.db.postgres import Cluster, available

_names = itertools.count()


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    if not available():
        pytest.fail("PostgreSQL 15 is not installed (Debian's postgresql: scripts/setup.sh --bench installs it)")
    cluster = Cluster()
    cluster.start()
    yield cluster
    cluster.remove()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> str:
    """A new empty database in the session's cluster."""
    return pg_cluster.create_database(f"hil_test_{next(_names)}")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path) -> str:
    """An empty results database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'hil.db'}"
    return request.getfixturevalue("pg_url")


PLUGIN_ARGS = ("-p", "hil_report", "-p", "no:cacheprovider")


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """An in-process pytest run with the report plugin only (as tests/report's)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")

    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest(*PLUGIN_ARGS, *args)

    return run
