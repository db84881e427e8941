"""The data step of the migrations that follow a parameter added to a metric (hil.catalogue.params_added): the
stored results of the metric that lack it are given it (their parameters, key and the fact `params_added`), and
the baselines' and runs' metric keys follow. What has the parameter is left alone: the step run again changes
nothing, so each such migration runs the whole table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from alembic import op
from sqlalchemy import Connection, Table, bindparam, select, update

from hil.catalogue import params_added
from hil.db.schema import BaselineRow, Result, Run
from hil.verdict.result import metric_key


def upgrade() -> None:
    connection = op.get_bind()
    results: Table = Result.__table__
    metrics = sorted({metric for added in params_added.ADDED_PARAMS for metric in added.metrics})
    columns = results.c.id, results.c.metric, results.c.params, results.c.facts
    changes = {}
    for row in connection.execute(select(*columns).where(results.c.metric.in_(metrics))):
        added = params_added.missing(row.metric, row.params)
        if added:
            params = {**row.params, **added}
            facts = {**row.facts, params_added.FACT: params_added.fact(added)}
            changes[row.id] = {"params": params, "params_key": metric_key(row.metric, params), "facts": facts}
    _update(connection, results, changes)
    _rekey(connection, BaselineRow.__table__, "params_key", params_added.completed_key)
    _rekey(connection, Run.__table__, "inventory_bands", _bands)


def downgrade() -> None:
    """Nothing to undo: an earlier hil reads these keys as any other."""


def _bands(bands: dict[str, Any]) -> dict[str, Any]:
    """A run's inventory_bands (board -> metric key -> what its results were judged by) under today's keys."""
    return {board: {params_added.completed_key(k): what for k, what in keys.items()} for board, keys in bands.items()}


def _rekey(connection: Connection, table: Table, column: str, rekey: Callable[[Any], Any]) -> None:
    rows = connection.execute(select(table.c.id, table.c[column]))
    _update(connection, table, {row_id: {column: new} for row_id, value in rows if (new := rekey(value)) != value})


def _update(connection: Connection, table: Table, changes: dict[Any, dict[str, Any]]) -> None:
    """Each row's new values (the same columns in every row), in one statement executed for them all."""
    if changes:
        names = list(next(iter(changes.values())))
        statement = update(table).where(table.c.id == bindparam("row"))
        statement = statement.values({name: bindparam(f"new_{name}") for name in names})
        rows = [{"row": row, **{f"new_{name}": value for name, value in new.items()}} for row, new in changes.items()]
        connection.execute(statement, rows)
