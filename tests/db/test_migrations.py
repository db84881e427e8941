"""Schema migrations: a database made by the first revision is taken to this hil's by `hil db upgrade`."""

from __future__ import annotations

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import text

from hil.db import migrate
from hil.db.baselines import Baselines
from hil.db.cli import main as db
from hil.db.engine import ENV_VARIABLE, DatabaseError, engine_for, open_chosen, open_db, resolve_url
from hil.db.read import history
from hil.db.write import write_run
from hil.records.store import RunInfo
from hil.report.testing import example_result

FIRST = "0001"


def test_the_first_revision_is_the_initial_schema():
    scripts = ScriptDirectory.from_config(migrate.config())
    assert scripts.get_base() == FIRST and scripts.get_revision(FIRST).down_revision is None


def test_head_is_the_newest_migration_shipped():
    """hil reads a database's revision without Alembic and compares it with migrate.HEAD: a new migration moves it."""
    assert ScriptDirectory.from_config(migrate.config()).get_current_head() == migrate.HEAD


def test_a_database_made_by_the_first_revision_upgrades_to_head_keeping_its_runs(db_url):
    engine = engine_for(db_url)
    migrate.upgrade(engine, FIRST)
    with engine.begin() as connection:  # a run as the first schema's hil wrote it, in plain SQL
        connection.execute(
            text(
                "INSERT INTO runs (id, started, complete, hil_version, command, host, tests, inventory_bands, "
                "result_count) VALUES ('r1', '2025-11-01 10:00:00+00:00', true, '0.1.0', 'pytest', '{}', '{}', '{}', 0)"
            )
        )
    info = RunInfo.start("pytest testcases")
    write_run(engine, info, [example_result()])  # and one through the writer, which the first revision had
    assert migrate.current(engine) == FIRST
    engine.dispose()
    assert db(["--hil-db", db_url, "upgrade"]) == 0
    engine = open_db(db_url, create=False)
    assert migrate.current(engine) == migrate.HEAD
    old, written = history(engine, samples=True)
    assert old.run.id == "r1" and old.run.started == "2025-11-01T10:00:00+00:00"
    assert written.run.id == info.id and written.results[0].values == example_result().values
    # The tables a later revision added work on the runs stored before it.
    Baselines(engine).update_all(written.results, info.id)
    assert Baselines(engine).load("vboard-hs").run_for("usb.msc.read[bs=1M]") == info.id
    engine.dispose()


def test_a_database_at_a_revision_this_hil_does_not_know_is_refused(db_url, capsys):
    engine = open_db(db_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = 'ffff'"))
    engine.dispose()
    assert db(["--hil-db", db_url, "export", "out"]) == 4
    assert "schema revision ffff, this hil needs" in capsys.readouterr().err


def test_the_workspace_file_follows_this_hil_and_a_database_named_is_upgraded_only_on_purpose(tmp_path, monkeypatch):
    # A user's first command after updating hil: reports/hil.db of the earlier hil is taken forward; the same
    # file named by --hil-db (or HIL_DB: a lab's shared database) is refused until `hil db upgrade`.
    monkeypatch.delenv(ENV_VARIABLE, raising=False)
    url = resolve_url(None, tmp_path)
    engine = engine_for(url)
    migrate.upgrade(engine, FIRST)
    engine.dispose()
    with pytest.raises(DatabaseError, match=f"schema revision {FIRST}, this hil needs .*: run `hil db upgrade`"):
        open_chosen(url, tmp_path)
    monkeypatch.setenv(ENV_VARIABLE, url)
    with pytest.raises(DatabaseError, match="run `hil db upgrade`"):
        open_chosen(None, tmp_path)
    monkeypatch.delenv(ENV_VARIABLE)
    engine = open_chosen(None, tmp_path)
    assert migrate.current(engine) == migrate.HEAD
    with engine.begin() as connection:  # a newer hil's revision is never "upgraded" from here
        connection.execute(text("UPDATE alembic_version SET version_num = 'ffff'"))
    engine.dispose()
    with pytest.raises(DatabaseError, match="schema revision ffff"):
        open_chosen(None, tmp_path)
