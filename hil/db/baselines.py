"""Baselines in the results database: per board pair and metric, the samples of its last few runs.

`--update-baseline` adds this run's result of each metric it measured (replacing an earlier update from the
same run) and keeps the newest `runs_kept`; metrics this run did not measure keep theirs; a metric whose unit
changed starts over. Each row names the run and the result its samples are, and who set it when. A comparison
needs several runs to know how far clean runs move (hil.verdict.baseline). `hil db import` refuses the baseline
files (baselines/<board>.json) of earlier hil versions: OLD_FILE says why.
"""

from __future__ import annotations

import getpass
import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import Connection, Engine, delete, func, insert, select

from hil.db.schema import BaselineRow, Result
from hil.facts import board_of, other_board
from hil.records.files import UnreadableJson, read_json
from hil.verdict.result import MetricResult, Verdict

DEFAULT_RUNS_KEPT = 5
_TABLE = BaselineRow.__table__


@dataclass
class BaselineRun:
    run: str  # the run these samples came from
    samples: list[float]
    median: float
    board: dict[str, Any] = field(default_factory=dict)  # which board measured them (hil.facts.board_of)


@dataclass
class BaselineMetric:
    unit: str
    runs: list[BaselineRun]  # oldest first


@dataclass
class Baseline:
    board: str
    metrics: dict[str, BaselineMetric]

    def runs_for(self, key: str) -> list[list[float]] | None:
        """The metric's samples, one list per run."""
        metric = self.metrics.get(key)
        return None if metric is None else [list(run.samples) for run in metric.runs]

    def run_medians(self, unit: str) -> dict[str, list[float]]:
        """The run medians of every metric in `unit`: what a metric's run-to-run spread is estimated from."""
        return {key: [run.median for run in metric.runs] for key, metric in self.metrics.items() if metric.unit == unit}

    def run_for(self, key: str, candidate: dict[str, Any] | None = None) -> str:
        """The runs a metric's samples came from, as a comparison names them, and the board they were measured
        on when it is not the `candidate`'s (its facts: hil.facts.Facts.identity)."""
        runs = self.metrics[key].runs
        named = runs[0].run if len(runs) == 1 else f"{len(runs)} runs {runs[0].run} .. {runs[-1].run}"
        other = other_board([run.board for run in runs], board_of(candidate))
        return f"{named} ({other})" if other else named


@dataclass(frozen=True)
class BaselineUpdate:
    board: str
    status: Literal["created", "updated", "unchanged"]
    written: tuple[str, ...]  # metric keys written from this run
    skipped: tuple[str, ...]  # metric keys of this run left out (ERROR, or fewer than two samples)
    runs_held: tuple[int, int] = (0, 0)  # fewest and most runs a written metric now holds


def eligible(result: MetricResult) -> bool:
    """An untrustworthy measurement (ERROR) or a lone sample is no reference for later releases."""
    return result.verdict is not Verdict.ERROR and result.stats is not None and len(result.values) >= 2


def who() -> str:
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # a container's uid without a passwd entry
        user = str(os.getuid())
    return f"{user}@{socket.gethostname()}"


class Baselines:
    """The baselines of one database, read once per board per session."""

    def __init__(self, engine: Engine, runs_kept: int = DEFAULT_RUNS_KEPT) -> None:
        if runs_kept < 1:
            raise ValueError(f"a baseline keeps at least one run, got {runs_kept}")
        self.engine = engine
        self.runs_kept = runs_kept
        self._cache: dict[str, Baseline | None] = {}

    def load(self, board: str) -> Baseline | None:
        """The board pair's baseline, None when it has none."""
        if board not in self._cache:
            query = (
                select(_TABLE, Result.board_identity)
                .outerjoin(Result, Result.id == _TABLE.c.result_id)
                .where(_TABLE.c.board == board)
                .order_by(_TABLE.c.id)
            )
            metrics: dict[str, BaselineMetric] = {}
            with self.engine.connect() as connection:
                for row in connection.execute(query):
                    run = BaselineRun(row.run_id, row.samples, row.median, board_of(row.board_identity))
                    metrics.setdefault(row.params_key, BaselineMetric(row.unit, [])).runs.append(run)
            self._cache[board] = Baseline(board, metrics) if metrics else None
        return self._cache[board]

    def update_all(self, results: Iterable[MetricResult], run_id: str) -> list[BaselineUpdate]:
        """This run's results (in the run's order: their ordinals) into each board's baseline, one transaction."""
        by_board: dict[str, list[tuple[int, MetricResult]]] = {}
        for ordinal, result in enumerate(results):
            by_board.setdefault(result.board, []).append((ordinal, result))
        stamp = {"set_at": datetime.now(UTC), "set_by": who()}
        with self.engine.begin() as connection:
            updates = [self._update(connection, board, mine, run_id, stamp) for board, mine in sorted(by_board.items())]
        self._cache.clear()
        return updates

    def _update(
        self,
        connection: Connection,
        board: str,
        results: list[tuple[int, MetricResult]],
        run_id: str,
        stamp: dict[str, Any],
    ) -> BaselineUpdate:
        usable = [(ordinal, result) for ordinal, result in results if eligible(result)]
        skipped = tuple(sorted({r.key for _, r in results if not eligible(r)}))
        written = tuple(sorted({r.key for _, r in usable}))
        if not usable:
            return BaselineUpdate(board, "unchanged", written, skipped)
        had = connection.scalar(select(func.count()).select_from(_TABLE).where(_TABLE.c.board == board))
        held = []
        for ordinal, result in usable:
            assert result.stats is not None  # eligible() checked it
            mine = (_TABLE.c.board == board) & (_TABLE.c.params_key == result.key)
            # This run replaces its own earlier update; a metric whose unit changed starts over.
            connection.execute(delete(_TABLE).where(mine, (_TABLE.c.run_id == run_id) | (_TABLE.c.unit != result.unit)))
            result_id = select(Result.id).where(Result.run_id == run_id, Result.ordinal == ordinal).scalar_subquery()
            values = {"samples": [float(v) for v in result.values], "median": float(result.stats.median)}
            row = {"board": board, "params_key": result.key, "unit": result.unit, "run_id": run_id, **values}
            connection.execute(insert(_TABLE).values(**row, result_id=result_id, **stamp))
            kept = connection.scalars(select(_TABLE.c.id).where(mine).order_by(_TABLE.c.id.desc())).all()
            connection.execute(delete(_TABLE).where(_TABLE.c.id.in_(kept[self.runs_kept :])))
            held.append(min(len(kept), self.runs_kept))
        return BaselineUpdate(board, "updated" if had else "created", written, skipped, (min(held), max(held)))


# --- the baseline files of earlier hil versions: refused -------------------------------------------------------

OLD_FILE = (
    "a baseline file of hil before the results database: not imported, since nothing ties its samples to the runs "
    "it names (a file could say any stored run measured any figures); store baselines with --update-baseline"
)


def is_baseline_file(path: Path) -> bool:
    """A baseline file, as opposed to a results document (which `hil db import` reads otherwise)."""
    try:
        data = read_json(path)
    except UnreadableJson:
        return False  # the results reader names it
    return isinstance(data, dict) and "metrics" in data and "schema" not in data
