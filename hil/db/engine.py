"""Where the results database is and how to open it: `--hil-db URL`, `HIL_DB`, else reports/hil.db.

SQLite (the default: a file, nothing to start) runs in WAL mode with a busy timeout, so a reader never
blocks the run writing and two writers wait for each other instead of failing. PostgreSQL (a shared lab)
goes through psycopg 3. Every failure to open is a DatabaseError naming the file, or the host and
database, never the password.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

ENV_VARIABLE = "HIL_DB"
DEFAULT_FILE = "hil.db"  # in the reports directory
BUSY_TIMEOUT_S = 30  # a writer waits this long for another's transaction before it fails


class DatabaseError(RuntimeError):
    """The results database cannot be opened or used; the message names it (without a password)."""


NOT_HIL = "not a hil results database (tables, but no schema revision)"
DRIVERS = {  # the URL schemes hil opens, and the driver of each
    "sqlite": "sqlite",
    "sqlite+pysqlite": "sqlite+pysqlite",
    "postgresql": "postgresql+psycopg",
    "postgresql+psycopg": "postgresql+psycopg",
}
SUPPORTED = "hil stores runs in SQLite (sqlite:///FILE) or PostgreSQL (postgresql://USER@HOST/DB, psycopg 3)"


def resolve_url(option: str | None, reports_dir: Path) -> str:
    """The option's URL, else HIL_DB's, else the SQLite file in `reports_dir`."""
    return _named(option) or f"sqlite:///{(reports_dir / DEFAULT_FILE).resolve()}"


def open_chosen(option: str | None, reports_dir: Path, *, create: bool = True) -> Engine:
    """open_db of resolve_url's database. The workspace's own file (no option, no HIL_DB) follows the hil that
    runs (a user's first command after an update); a database named is shared: `hil db upgrade` takes it forward,
    on purpose, once no older hil writes to it."""
    return open_db(resolve_url(option, reports_dir), create=create, upgrade=not _named(option))


def _named(option: str | None) -> str | None:
    return option or os.environ.get(ENV_VARIABLE)


def database_named(url: str | URL) -> str:
    """describe()'s name with an SQLite file's path made absolute: one database, from whichever directory."""
    file = _sqlite_file(url)
    return f"SQLite file {file.resolve()}" if file is not None else describe(url)


def describe(url: str | URL) -> str:
    """The database as an error message may name it: the file, or user@host:port/database."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return "an invalid database URL"
    if parsed.get_backend_name() == "sqlite":
        return f"SQLite file {parsed.database or ':memory:'}"
    where = f"{parsed.host or 'localhost'}{f':{parsed.port}' if parsed.port else ''}/{parsed.database or ''}"
    return f"{parsed.get_backend_name()} database {where}" + (f" (user {parsed.username})" if parsed.username else "")


def _scrub(text: str, url: URL) -> str:
    return text.replace(url.password, "***") if url.password else text


def _sqlite_pragmas(connection: sqlite3.Connection, _record: Any) -> None:
    cursor = connection.cursor()
    for pragma in (f"busy_timeout = {BUSY_TIMEOUT_S * 1000}", "journal_mode = WAL", "foreign_keys = ON"):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


def engine_for(url: str | URL) -> Engine:
    """An engine for `url` (nothing is connected yet); psycopg 3 for a postgresql:// URL without a driver. Any
    other scheme (mysql://, postgresql+asyncpg://) is a DatabaseError naming what hil supports."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise DatabaseError(f"not a database URL ({exc})") from None
    if parsed.drivername not in DRIVERS:
        raise DatabaseError(f"{describe(parsed)}: {SUPPORTED}, not {parsed.drivername}://")
    parsed = parsed.set(drivername=DRIVERS[parsed.drivername])
    if parsed.get_backend_name() == "sqlite":
        if (file := _sqlite_file(parsed)) is not None:
            file.parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": BUSY_TIMEOUT_S})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(parsed, pool_pre_ping=True, connect_args={"connect_timeout": 10})


def open_db(url: str | URL, *, create: bool = True, upgrade: bool = False) -> Engine:
    """Connect and check the schema: an empty database gets the current schema (`create`), one at an older
    revision is taken forward (`upgrade`) or refused (run `hil db upgrade`), a file that is not hil's results
    database is refused."""
    from hil.db import migrate  # Alembic: only where a database is opened (not in every xdist worker)

    file = _sqlite_file(url)
    if not create and file is not None and not file.exists():  # connecting would leave an empty file behind
        raise DatabaseError(f"{describe(url)}: no such file: no run is stored there")
    engine = engine_for(url)
    try:
        # Under the lock: another process starting at once may be making the schema right now (between its
        # migrations the file holds an older revision; SQLite's switch to WAL answers "database is locked").
        with _schema_lock(engine):
            _make_schema(engine, url, migrate.current(engine), create=create, upgrade=upgrade)
    except DatabaseError:
        engine.dispose()
        raise
    except (SQLAlchemyError, sqlite3.Error, OSError) as exc:
        engine.dispose()
        raise DatabaseError(f"{describe(url)}: cannot be opened: {_scrub(first_line(exc), make_url(url))}") from None
    return engine


def _sqlite_file(url: str | URL) -> Path | None:
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    database = parsed.database
    is_file = parsed.get_backend_name() == "sqlite" and database and database != ":memory:"
    return Path(database) if is_file and not database.startswith("file:") else None


@contextmanager
def _schema_lock(engine: Engine) -> Iterator[None]:
    """An SQLite file's schema is made or taken forward by one process at a time (flock on `<file>.lock` beside
    it); another backend locks in its migration. Never on the database file: closing any descriptor of it drops
    every fcntl lock this process holds there, SQLite's own included, and another process then took WAL mode's
    files away from a connection still open here ("database disk image is malformed", two runs in one folder).
    An SQLite `file:` URI is left to SQLite: its lock file was named after the URI, not beside the database."""
    database = _sqlite_file(engine.url)
    if database is None:
        yield
        return
    with Path(f"{database}.lock").open("ab") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        yield


def _make_schema(engine: Engine, url: str | URL, revision: str | None, *, create: bool, upgrade: bool) -> None:
    from hil.db import migrate

    if revision is None:
        if inspect(engine).get_table_names():
            raise DatabaseError(f"{describe(url)}: {NOT_HIL}")
        if not create:
            raise DatabaseError(f"{describe(url)}: empty: no run is stored there")
        migrate.upgrade(engine)
    elif upgrade and migrate.is_older(revision):
        migrate.upgrade(engine)
    elif revision != migrate.HEAD:
        raise DatabaseError(
            f"{describe(url)}: schema revision {revision}, this hil needs {migrate.HEAD}: run `hil db upgrade`"
        )
    check_tables(engine, url)


def check_tables(engine: Engine, url: str | URL) -> None:
    """A database at this hil's revision holds every table of its schema (none dropped by hand or another tool)."""
    from hil.db.schema import Base

    if missing := sorted(set(Base.metadata.tables) - set(inspect(engine).get_table_names())):
        raise DatabaseError(f"{describe(url)}: not a whole hil results database: no table {', '.join(missing)}")


def first_line(exc: BaseException) -> str:
    """The first line of what a database error says (its driver's message, when it wraps one)."""
    inner = getattr(exc, "orig", None) or exc
    return (str(inner).strip().splitlines() or [type(inner).__name__])[0]


def add_options(parser: argparse.ArgumentParser, *, defaults: bool = True) -> None:
    """--hil-db and --hil-reports, as every entry point that reads the database takes them; `defaults=False` for
    a subcommand's copy (`hil db push --hil-db URL`), which leaves the values given before the subcommand."""
    hil_db: dict[str, object] = {} if defaults else {"default": argparse.SUPPRESS}
    hil_reports: dict[str, object] = {"default": Path("reports") if defaults else argparse.SUPPRESS}
    help_db = "the results database (default: $HIL_DB, else reports/hil.db)"
    parser.add_argument("--hil-db", metavar="URL", help=help_db, **hil_db)
    parser.add_argument("--hil-reports", metavar="DIR", type=Path, help="default: reports", **hil_reports)


def connect(args: argparse.Namespace, *, create: bool = True) -> Engine:
    return open_chosen(args.hil_db, args.hil_reports, create=create)
