"""Schema migrations (Alembic, shipped in hil.db's migrations/): what `hil db upgrade` runs."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

SCRIPT_LOCATION = "hil.db:migrations"


def _config(connection: object | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    config.attributes["connection"] = connection
    return config


def head() -> str:
    revision = ScriptDirectory.from_config(_config()).get_current_head()
    assert revision is not None  # migrations/versions ships with the package
    return revision


def current(engine: Engine) -> str | None:
    """The revision the database is at; None for an empty database."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Take the database forward to `revision` (each migration in its own transaction)."""
    with engine.begin() as connection:
        command.upgrade(_config(connection), revision)
