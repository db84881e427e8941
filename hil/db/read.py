"""Reading runs back as hil's records: StoredRun (RunInfo + MetricResults), oldest first.

Gate readers see complete runs only (hil.db.write): a run still writing, or one whose results are partly
spooled, is left out until it is whole. Results come in one query per run batch, samples in one more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, Row, Select, func, select

from hil.db import convert
from hil.db.schema import Result, Run, SampleRow
from hil.records.store import StoredRun

_BATCH = 500  # run ids per IN (...): SQLite binds at most 32766 parameters, PostgreSQL 65535


def _runs(
    engine: Engine, query: Select[Any], *, samples: bool = True, board: str | None = None, values_only: bool = False
) -> list[StoredRun]:
    # Core rows, not ORM objects: a comparison reads thousands of results, and building mapped instances
    # for them cost more than the query (benchmarks/results_db.py).
    results, sample_table = Result.__table__, SampleRow.__table__
    # values_only: what a gate reads of a sample; its tool output and facts are most of a read's time
    sample_fields = convert.SAMPLE_VALUES if values_only else convert.SAMPLE_FIELDS
    with engine.connect() as connection:
        runs = list(connection.execute(query.order_by(Run.started, Run.id)))
        by_run: dict[str, list[Row[Any]]] = {run.id: [] for run in runs}
        sample_rows: dict[int, list[Row[Any]]] = {}
        ids = list(by_run)
        for start in range(0, len(ids), _BATCH):
            mine = [results.c.run_id.in_(ids[start : start + _BATCH])]
            if board is not None:
                mine.append(results.c.board == board)
            for row in connection.execute(select(results).where(*mine).order_by(results.c.ordinal)):
                by_run[row.run_id].append(row)
            if samples:
                keys = ("result_id", "position", "warmup", *sample_fields)
                columns = [sample_table.c[name] for name in keys] if values_only else [sample_table]
                joined = select(*columns).join(results, sample_table.c.result_id == results.c.id)
                for sample in connection.execute(joined.where(*mine)):
                    sample_rows.setdefault(sample.result_id, []).append(sample)
    return [
        StoredRun(
            convert.run_info(run),
            [convert.metric_result(row, sample_rows.get(row.id, []), sample_fields) for row in by_run[run.id]],
        )
        for run in runs
    ]


def runs_of_build(engine: Engine, build: str, *, values_only: bool = False) -> list[StoredRun]:
    """Every complete run of build `build` (run.build.name), with samples (their values alone: `values_only`)."""
    query = select(Run.__table__).where(Run.build_name == build, Run.complete)
    return _runs(engine, query, values_only=values_only)


def runs_by_id(engine: Engine, run_ids: Sequence[str], *, complete_only: bool = True) -> list[StoredRun]:
    query = select(Run.__table__).where(Run.id.in_(list(run_ids)))
    return _runs(engine, query.where(Run.complete) if complete_only else query)


def newest_runs(engine: Engine, query: Select[Any], limit: int, board: str | None = None) -> list[StoredRun]:
    """The newest `limit` runs `query` (of run ids) selects, oldest first, with their results (on `board` only,
    when given) and samples (their values alone: what a gate reads)."""
    newest = query.order_by(Run.started.desc(), Run.id.desc()).limit(limit)
    return _runs(engine, select(Run.__table__).where(Run.id.in_(newest)), board=board, values_only=True)


def history(engine: Engine, *, samples: bool = False, limit: int | None = None) -> list[StoredRun]:
    """Complete runs, oldest first (the newest `limit` when given); without samples unless asked (the trend
    draws medians)."""
    query = select(Run.__table__).where(Run.complete)
    if limit:
        newest = select(Run.id).where(Run.complete).order_by(Run.started.desc(), Run.id.desc()).limit(limit)
        query = query.where(Run.id.in_(newest))
    return _runs(engine, query, samples=samples)


def is_complete(engine: Engine, run_id: str) -> bool:
    with engine.connect() as connection:
        return bool(connection.scalar(select(Run.complete).where(Run.id == run_id)))


def all_runs(engine: Engine) -> list[StoredRun]:
    """Every run, complete or not, with samples: what `hil db export` writes."""
    return _runs(engine, select(Run.__table__))


def builds(engine: Engine) -> list[tuple[str, int]]:
    """Build names with their number of complete runs, by name."""
    query = select(Run.build_name, func.count()).where(Run.complete, Run.build_name.is_not(None))
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(query.group_by(Run.build_name).order_by(Run.build_name))]
