"""What each dashboard page reads from the results database, in queries bounded by the page.

The matrix counts verdicts per build and board in one grouped query over a page of builds and reads their stored
gates in one more; a history reads one metric's rows through the history index, a page at a time; a gate loads
two builds' runs, on one board when asked. Only complete runs are shown, except on a run's own page.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Engine, func, or_, select
from sqlalchemy.orm import Session

from hil.db import convert, gates, read
from hil.db.gates import CellGate
from hil.db.schema import Result, Run
from hil.records.store import StoredRun

PAGE = 20  # matrix rows (builds) per page
HISTORY_PAGE = 200  # runs per history page: a plot still legible, a step still visible


@dataclass
class MatrixRow:
    """A build (all its runs), or one run that measured no named build."""

    build: str | None
    run_id: str | None
    last: datetime
    runs: int
    cells: dict[str, Counter[str]] = field(default_factory=dict)  # board -> verdict -> results
    gates: dict[str, CellGate] = field(default_factory=dict)  # board -> the build's stored gate (hil.db.gates)

    @property
    def label(self) -> str:
        return self.build if self.build is not None else f"run {self.run_id}"


def matrix(engine: Engine, page: int) -> tuple[list[MatrixRow], list[str], bool]:
    """One page of builds (newest first), the boards they measured, and whether an older page exists."""
    solo = gates.SOLO_RUN.label("solo")
    last = func.max(Run.started).label("last")
    query = (
        select(Run.build_name, solo, last, func.count())
        .where(Run.complete)
        .group_by(Run.build_name, solo)
        .order_by(last.desc(), Run.build_name, solo)
        .limit(PAGE + 1)
        .offset(page * PAGE)
    )
    with Session(engine) as session:
        rows = [MatrixRow(build, run_id, when, count) for build, run_id, when, count in session.execute(query)]
        more = len(rows) > PAGE
        rows = rows[:PAGE]
        names = [row.build for row in rows if row.build is not None]
        solos = [row.run_id for row in rows if row.run_id is not None]
        counts = (
            select(Run.build_name, solo, Result.board, Result.verdict, func.count())
            .join(Run, Run.id == Result.run_id)
            .where(Run.complete, or_(Run.build_name.in_(names), Run.id.in_(solos)))
            .group_by(Run.build_name, solo, Result.board, Result.verdict)
        )
        by_key = {(row.build, row.run_id): row for row in rows}
        boards: set[str] = set()
        for build, run_id, board, verdict, count in session.execute(counts):
            by_key[(build, run_id)].cells.setdefault(board, Counter())[verdict] += count
            boards.add(board)
    for (build, board), cell in gates.stored_cells(engine, names).items():
        if (build, None) in by_key:
            by_key[(build, None)].gates[board] = cell
    return rows, sorted(boards), more


def page_of(engine: Engine, build: str) -> int | None:
    """The matrix page that shows `build` (None: no complete run of it): the rows whose last run is newer, by PAGE."""
    last = gates.build_started(build, func.max)
    newer = gates.other_rows(build, Run.build_name, gates.SOLO_RUN).having(func.max(Run.started) > last).subquery()
    with engine.connect() as connection:
        if connection.scalar(select(last)) is None:
            return None
        return int(connection.scalar(select(func.count()).select_from(newer)) or 0) // PAGE


@dataclass(frozen=True)
class HistoryRow:
    run_id: str
    started: datetime
    build: str | None
    result: Result


def history(engine: Engine, board: str, metric: str, key: str, page: int) -> tuple[list[HistoryRow], bool]:
    """One page of a metric's results on a board, oldest first within the page; whether older ones exist."""
    query = (
        select(Result, Run.build_name)
        .join(Run, Run.id == Result.run_id)
        .where(Result.board == board, Result.metric == metric, Result.params_key == key, Run.complete)
        .order_by(Result.run_started.desc(), Result.run_id.desc())
        .limit(HISTORY_PAGE + 1)
        .offset(page * HISTORY_PAGE)
    )
    with Session(engine) as session:
        found = [HistoryRow(r.run_id, r.run_started, build, r) for r, build in session.execute(query)]
        session.expunge_all()
    return found[:HISTORY_PAGE][::-1], len(found) > HISTORY_PAGE


@dataclass(frozen=True)
class Median:
    """One run's median of a metric: what a history's steps are found in."""

    label: str  # when the run started, as the history's plot names it
    build: str | None
    median: float


def medians(engine: Engine, board: str, metric: str, key: str) -> list[Median]:
    """Every complete run's median of the metric on the board, oldest first: the whole history's steps (one
    column through the history index, a few kB for a thousand runs)."""
    query = (
        select(Result.run_started, Run.build_name, Result.median)
        .join(Run, Run.id == Result.run_id)
        .where(Result.board == board, Result.metric == metric, Result.params_key == key, Run.complete)
        .where(Result.median.is_not(None))
        .order_by(Result.run_started, Result.run_id)
    )
    with engine.connect() as connection:
        rows = connection.execute(query)
        return [Median(convert.iso(started)[:16].replace("T", " "), build, median) for started, build, median in rows]


def run(engine: Engine, run_id: str) -> tuple[StoredRun, bool] | None:
    """A run with all its results and samples, and whether it is complete; None when there is no such run."""
    found = read.runs_by_id(engine, [run_id], complete_only=False)
    if not found:
        return None
    if not isinstance(found[0].run.host, dict):  # not the facts hil stores (another tool's row): none shown
        found[0].run.host = {}
    return found[0], read.is_complete(engine, run_id)
