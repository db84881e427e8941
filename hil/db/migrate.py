"""Schema migrations (Alembic, shipped in hil.db's migrations/): what `hil db upgrade` runs.

Opening a database only reads its revision and compares it with HEAD: Alembic (and the migrations, which load
the catalogue) is imported when a schema must change, not by every command that reads a store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import Engine, inspect, text

if TYPE_CHECKING:
    from alembic.config import Config

SCRIPT_LOCATION = "hil.db:migrations"
HEAD = "0005"  # the newest revision under migrations/versions (tests/db/test_migrations.py holds them equal)
VERSION_TABLE = "alembic_version"  # where Alembic keeps a database's revision
MIGRATION_LOCK = 0x68696C  # the advisory lock schema changes take on PostgreSQL ("hil")


def config(connection: object | None = None) -> Config:
    from alembic.config import Config

    made = Config()
    made.set_main_option("script_location", SCRIPT_LOCATION)
    made.attributes["connection"] = connection
    return made


def is_older(revision: str) -> bool:
    """A revision of this hil's history before its head (not one a newer hil made)."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(config())
    return revision != HEAD and any(script.revision == revision for script in scripts.walk_revisions())


def current(engine: Engine) -> str | None:
    """The revision the database is at; None for an empty database."""
    with engine.connect() as connection:
        if not inspect(connection).has_table(VERSION_TABLE):
            return None
        return connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Take the database forward to `revision`, in one transaction. On PostgreSQL one upgrade at a time: two
    builds starting on an empty database both try to create it (the second then finds it made, and does
    nothing) instead of one failing on the other's half-made tables."""
    from alembic import command

    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        command.upgrade(config(connection), revision)
