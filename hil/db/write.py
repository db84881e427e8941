"""Writing runs as their results arrive: one transaction per result, idempotent, spooled when it cannot.

The run row goes in when the run starts (complete = false), each result with its samples in one transaction
keyed by (run id, ordinal), and `finish` marks the run complete once every result it reported is in: gate
readers (hil.db.read) never see half a run. A replayed write (`hil db push`, an import twice) inserts nothing
twice: the keys are unique and conflicts are skipped. When the database fails mid-run the writer stops trying
(a run must not wait on a dead server per result) and spools what it could not deliver for `hil db push`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, Insert, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError

from hil.db import convert
from hil.db.engine import DatabaseError, database_named, describe, first_line
from hil.db.read import is_complete, runs_by_id
from hil.db.schema import Result, Run, SampleRow
from hil.db.spool import Spool
from hil.records.store import RunInfo
from hil.verdict.gate import band_verdict
from hil.verdict.result import MetricResult
from hil.verdict.stats import describe as statistics_of


def insert_into(connection: Connection, table: Any) -> Insert:
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    return dialect.insert(table)


def insert_run(connection: Connection, info: RunInfo) -> None:
    statement = insert_into(connection, Run).values(**convert.run_values(info), inventory_bands={})
    connection.execute(statement.on_conflict_do_nothing(index_elements=["id"]))


def insert_result(connection: Connection, info: RunInfo, ordinal: int, result: MetricResult) -> None:
    values = convert.result_values(result, info.id, ordinal, convert.moment(info.started))
    statement = (
        insert_into(connection, Result)
        .values(**values)
        .on_conflict_do_nothing(index_elements=["run_id", "ordinal"])
        .returning(Result.id)
    )
    result_id = connection.execute(statement).scalar()
    # None: this result was written before, its samples with it
    if result_id is not None and (samples := convert.sample_values(result, result_id)):
        connection.execute(insert_into(connection, SampleRow), samples)


def finish_run(connection: Connection, info: RunInfo, result_count: int, bands: dict[str, Any]) -> None:
    """The run's final facts; complete when all `result_count` results are in."""
    values = convert.run_values(info)
    del values["id"]
    stored = connection.scalar(select(func.count()).select_from(Result).where(Result.run_id == info.id))
    connection.execute(
        update(Run)
        .where(Run.id == info.id, Run.complete.is_(False))  # a complete run is never changed (a replayed push)
        .values(**values, result_count=result_count, inventory_bands=bands, complete=stored == result_count)
    )


def bands_of(results: Iterable[MetricResult]) -> dict[str, Any]:
    """board -> metric key -> what its results were judged by (hil.db.convert.judged_by)."""
    bands: dict[str, Any] = {}
    for result in results:
        bands.setdefault(result.board, {})[result.key] = convert.judged_by(result)
    return bands


class StoredRunConflict(DatabaseError):
    """A run of this id is stored with other content: a stored run is never changed."""


# What a run id may be: a file name too (`hil db export` names each run's file by it), within the column's 64.
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+-]{0,63}")


def check_run_id(run_id: str) -> None:
    if not RUN_ID.fullmatch(run_id):
        raise DatabaseError(f"run id {run_id!r}: not a run id (letters, digits and . _ : + -, at most 64)")


def check_names(info: RunInfo, results: Iterable[MetricResult], where: str = "") -> None:
    """The run's id (check_run_id), and each name it brings within its column (what PostgreSQL holds: SQLite would
    keep a longer one) and printable: its build's name and version, each result's pair, metric and unit; else
    DatabaseError naming the first that is not."""
    check_run_id(info.id)
    build = info.build or {}
    runs, stored = Run.__table__.c, Result.__table__.c
    names = [(runs.build_name, build.get("name")), (runs.build_version, build.get("version"))]
    names += [
        (column, getattr(r, column.key)) for r in results for column in (stored.board, stored.metric, stored.unit)
    ]
    for column, value in names:
        if isinstance(value, str) and (len(value) > column.type.length or not value.isprintable()):
            shown = value[:60] + ("..." if len(value) > 60 else "")
            raise DatabaseError(f"{where}{column.key} {shown!r}: not a name (printable, {column.type.length} at most)")


def _content(info: RunInfo, results: dict[int, MetricResult]) -> tuple[Any, dict[int, Any]]:
    """What makes two copies of a run the same run: its build (its whole identity), and each result's pair, key,
    verdict and samples (by ordinal)."""
    return info.build, {
        ordinal: (r.board, r.key, str(r.verdict), [float(f"{v:.12g}") for v in r.values])
        for ordinal, r in results.items()
    }


def _name(build: Any) -> Any:
    return (build or {}).get("name")


def _same_as_stored(
    engine: Engine, info: RunInfo, results: dict[int, MetricResult], where: str = "", *, continued: bool = False
) -> bool:
    """Whether this very run is stored (nothing to write); False when no run of its id is, or when `continued`
    (a push) and it is stored incomplete, of its build, each stored result this run's at its ordinal (when it holds
    that ordinal). Another run under its id is a StoredRunConflict (`where`: what the message starts with): a
    stored run is never changed."""
    stored = runs_by_id(engine, [info.id], complete_only=False)
    if not stored:
        return False
    with engine.connect() as connection:
        query = select(Result.ordinal).where(Result.run_id == info.id).order_by(Result.ordinal)
        ordinals = connection.scalars(query).all()
    complete = is_complete(engine, info.id)
    build, mine = _content(info, results)
    stored_build, theirs = _content(stored[0].run, dict(zip(ordinals, stored[0].results, strict=True)))
    if build == stored_build and continued and not complete and all(mine.get(o, c) == c for o, c in theirs.items()):
        return False
    if build == stored_build and theirs == mine:
        return True
    hint = "" if complete or continued else " (incomplete: `hil db push` its spool)"
    raise StoredRunConflict(
        f"{where}run {info.id} is stored already{hint} with other content (build {_name(stored_build)!r}, "
        f"{len(theirs)} results; this one: build {_name(build)!r}, {len(mine)} results): a stored run is never changed"
    )


def check_figures(results: Iterable[MetricResult], where: str = "") -> None:
    """A run from a file (import, push) is stored only when its figures say what it claims: samples finite, the
    summary the one its samples give (n, mean, median, CV), and a PASS, MARGINAL or INFO the verdict its samples
    give (hil.verdict.gate.band_verdict); else DatabaseError naming the result (a file could claim PASS for
    1e308 MB/s)."""
    for result in results:
        key = f"{where}{result.board} {result.key}"
        values = result.values
        if not all(math.isfinite(value) for value in [*values, *(s.value for s in result.warmup)]):
            raise DatabaseError(f"{key}: a sample that is no finite number")
        if (stats := result.stats) is not None:
            try:
                given = statistics_of(values, stats.confidence)
            except ValueError:  # fewer than 2 samples, a mean of 0, a confidence no statistics has: none
                given = None
            if given is None or not all(
                math.isclose(getattr(stats, name), getattr(given, name), rel_tol=1e-9, abs_tol=1e-12)
                for name in ("n", "mean", "median", "cv")
            ):
                what = ", ".join(f"{name} {getattr(stats, name):g}" for name in ("n", "median", "cv"))
                raise DatabaseError(f"{key}: its summary ({what}) is not its samples'")
        if result.verdict.passed and result.band is not None and len(values) < 2:
            raise DatabaseError(f"{key}: {result.verdict} on {len(values)} sample(s): a verdict needs 2")
        verdict, why = band_verdict(result, convert.cv_gated(result.metric))
        if verdict is not result.verdict:
            raise DatabaseError(f"{key}: {why}")


def write_run(engine: Engine, info: RunInfo, results: list[MetricResult]) -> bool:
    """A whole run at once (import): the run, every result, then complete. A stored run is never changed: the
    same run again writes nothing (False); another one under a stored id is refused (StoredRunConflict)."""
    check_names(info, results)
    if _same_as_stored(engine, info, dict(enumerate(results))):
        return False
    with engine.begin() as connection:
        insert_run(connection, info)
        for ordinal, result in enumerate(results):
            insert_result(connection, info, ordinal, result)
        finish_run(connection, info, len(results), bands_of(results))
    return True


class RunWriter:
    """The live writer of one run (the report plugin's): begin, add per result, finish."""

    def __init__(self, engine: Engine, info: RunInfo, spool: Spool) -> None:
        self.engine = engine
        self.info = info
        self.spool = spool
        self.results: list[MetricResult] = []
        self.failure: str | None = None  # why the database stopped taking this run's writes

    def _write(self, action: str, record: dict[str, Any], work: Any) -> None:
        if self.failure is None:
            try:
                with self.engine.begin() as connection:
                    work(connection)
                return
            except SQLAlchemyError as exc:
                self.failure = f"{describe(self.engine.url)}: {action} failed: {first_line(exc)}"
                self.engine.dispose()
                # push needs the run before its results, and the database it is for
                self.spool.append({"run": self.info.to_dict(), "database": database_named(self.engine.url)})
                for ordinal, earlier in enumerate(self.results[:-1] if "result" in record else self.results):
                    self.spool.append({"ordinal": ordinal, "result": earlier.to_dict()})  # replays are idempotent
        self.spool.append(record)

    def begin(self) -> None:
        self._write("starting the run", {"run": self.info.to_dict()}, lambda c: insert_run(c, self.info))

    def add(self, result: MetricResult) -> None:
        ordinal = len(self.results)
        self.results.append(result)
        record = {"ordinal": ordinal, "result": result.to_dict()}
        self._write("storing a result", record, lambda c: insert_result(c, self.info, ordinal, result))

    def finish(self) -> None:
        count, bands = len(self.results), bands_of(self.results)
        record = {"finish": self.info.to_dict(), "result_count": count}
        self._write("finishing the run", record, lambda c: finish_run(c, self.info, count, bands))


def push(engine: Engine, spool_path: Path) -> RunInfo:
    """Deliver one spool file (hil.db.spool) and delete it; DatabaseError when it cannot be delivered."""
    info, spooled, finished, database = Spool(spool_path).read()
    if database is not None and database != database_named(engine.url):
        raise DatabaseError(
            f"{spool_path}: spooled for {database}, not {database_named(engine.url)}: push it with that database's "
            "--hil-db URL (or HIL_DB); the spool is kept"
        )
    results = {ordinal: convert.with_added_params(result) for ordinal, result in spooled.items()}  # an earlier hil's
    check_names(info, results.values(), f"{spool_path}: ")
    if finished is not None and (finished[0].id, finished[0].build) != (info.id, info.build):
        raise DatabaseError(
            f"{spool_path}: its finish record is of run {finished[0].id} (build {_name(finished[0].build)!r}), not "
            f"of its run {info.id} (build {_name(info.build)!r}): a spool finishes its own run only; the spool is kept"
        )
    check_figures(results.values(), f"{spool_path}: ")
    try:
        # Delivered before: the same run again (nothing to write), or the rest of it; another one under its id
        # is refused (StoredRunConflict).
        if _same_as_stored(engine, info, results, f"{spool_path}: ", continued=True):
            spool_path.unlink()
            return info
        with engine.begin() as connection:
            insert_run(connection, info)
            for ordinal, result in sorted(results.items()):
                insert_result(connection, info, ordinal, result)
            if finished is not None:
                finish_run(connection, *finished, bands_of(results.values()))
    except SQLAlchemyError as exc:
        raise DatabaseError(f"{describe(engine.url)}: {spool_path} not delivered: {exc.__class__.__name__}") from None
    spool_path.unlink()
    return info
