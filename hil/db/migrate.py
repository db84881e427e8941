"""Schema migrations (Alembic, shipped in hil.db's migrations/): what `hil db upgrade` runs."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

SCRIPT_LOCATION = "hil.db:migrations"
MIGRATION_LOCK = 0x68696C  # the advisory lock schema changes take on PostgreSQL ("hil")


def _config(connection: object | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    config.attributes["connection"] = connection
    return config


def head() -> str:
    revision = ScriptDirectory.from_config(_config()).get_current_head()
    assert revision is not None  # migrations/versions ships with the package
    return revision


def is_older(revision: str) -> bool:
    """A revision of this hil's history before its head (not one a newer hil made)."""
    scripts = ScriptDirectory.from_config(_config())
    return revision != head() and any(script.revision == revision for script in scripts.walk_revisions())


def current(engine: Engine) -> str | None:
    """The revision the database is at; None for an empty database."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Take the database forward to `revision`, in one transaction. On PostgreSQL one upgrade at a time: two
    builds starting on an empty database both try to create it (the second then finds it made, and does
    nothing) instead of one failing on the other's half-made tables."""
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        command.upgrade(_config(connection), revision)
