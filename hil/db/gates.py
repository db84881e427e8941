"""The release gate over stored runs: two sides read from the results database, checked to agree on what each
metric is, and decided by hil.verdict.gate; and each build's gate per board, stored when its runs are in.

`hil compare`, `--reference-build` and the dashboard's gate page render compare_sides' Comparison. The
dashboard's matrix shows the stored gates: a build's gate on a board against the build before it (`previous`),
the gate page's default reference, decided again whenever a run of the build or of its reference is stored
(`refresh`: after a run, a `hil db import`, a `hil db push`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, Select, case, delete, func, insert, or_, select

from hil.db import read
from hil.db.convert import cv_gated, judged_by
from hil.db.schema import GateRow, Result, Run
from hil.errors import InventoryError
from hil.records.store import StoredRun
from hil.verdict import gate
from hil.verdict.gate import Gate, Row, Thresholds
from hil.verdict.result import MetricResult

# A matrix row: a build, or a run that measured none (its own row); previous and the dashboard group by it.
SOLO_RUN = case((Run.build_name.is_(None), Run.id), else_=None)
GATE_RUNS = 50  # newest runs of a build a stored or shown gate compares
CELL_NAMES = 2  # blocking metrics a cell names before "and N more"


class CompareError(ValueError):
    """Input the comparison cannot use; the message names the builds, runs or file."""


@dataclass
class Side:
    """The runs of one side of a comparison (a build's, or one run), and how the gate names it. Read from the
    database, their samples hold the values alone (convert.SAMPLE_VALUES): no tool output, no facts."""

    label: str
    runs: list[StoredRun]


@dataclass
class Comparison:
    reference: dict[str, Any]
    candidate: dict[str, Any]
    gate: Gate
    summary: str
    rows: list[Row] = field(default_factory=list)
    min_effect: float | None = None  # one for every metric (--min-effect); None: each metric's own

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["gate"] = str(self.gate)
        for row in data["rows"]:
            row["gate"] = str(row["gate"])
        return data


def load_side(build: str, engine: Engine) -> Side:
    """Every complete run of `build` in the database; CompareError when it has none."""
    runs = read.runs_of_build(engine, build, values_only=True)  # a gate decides on values
    if not runs:
        raise CompareError(f"no run of build {build!r} stored in the results database")
    return Side(build, runs)


def _identity(side: Side) -> dict[str, Any]:
    builds = {json.dumps(stored.run.build, sort_keys=True) for stored in side.runs}
    build = side.runs[0].run.build if len(builds) == 1 else None
    return {"label": side.label, "build": build, "runs": [stored.run.id for stored in side.runs]}


def _name(stored: StoredRun) -> str:
    build = (stored.run.build or {}).get("name")
    return f"run {stored.run.id}" + (f" (build {build})" if build else "")


def thresholds(
    reference: Side, candidate: Side, inventory: Path | None = None, *, live: bool = False
) -> dict[tuple[str, str], Thresholds]:
    """Each metric's thresholds; CompareError naming two runs that disagree on what the metric is (unit,
    direction) or, unless `inventory` rules or the candidate is the `live` run (its results carry the
    inventory in force), on its band, thresholds or inventory file."""
    names = [{s.run.build.get("name") for s in side.runs if s.run.build} for side in (reference, candidate)]
    if builds := names[0] & names[1]:
        raise CompareError(f"build {sorted(builds)[0]!r} is on both sides: compare two builds")
    seen: dict[tuple[str, str], tuple[dict[str, Any], StoredRun, MetricResult]] = {}
    files: dict[str, StoredRun] = {}
    ruled = inventory is not None or live
    for stored in [*candidate.runs, *reference.runs] if live else [*reference.runs, *candidate.runs]:
        if stored.run.inventory is not None and not ruled:
            files.setdefault(stored.run.inventory["sha256"], stored)
            if len(files) > 1:
                first = next(iter(files.values()))
                raise CompareError(
                    f"the runs come from different inventories: {_name(first)} used {first.run.inventory['path']}, "
                    f"{_name(stored)} used {stored.run.inventory['path']}: name the one that rules with --inventory"
                )
        for result in stored.results:
            what = judged_by(result)
            key = (result.board, result.key)
            if key not in seen:
                seen[key] = (what, stored, result)
                continue
            earlier, other, _ = seen[key]
            for aspect in ("unit", "direction") if ruled else tuple(what):
                if what[aspect] != earlier[aspect]:
                    hint = "" if aspect in ("unit", "direction") else ": name the inventory that rules with --inventory"
                    raise CompareError(
                        f"{key[0]} {key[1]}: {aspect} {earlier[aspect]!r} in {_name(other)}, {what[aspect]!r} in "
                        f"{_name(stored)}{hint}"
                    )
    if inventory is None:
        return {
            key: Thresholds(what["min_effect"], what["run_spread"], cv_gated(result.metric))
            for key, (what, _, result) in seen.items()
        }
    return _from_inventory(inventory, {key: result for key, (_, _, result) in seen.items()})


def _from_inventory(path: Path, results: dict[tuple[str, str], MetricResult]) -> dict[tuple[str, str], Thresholds]:
    from hil.inventory.loader import load_inventory  # the catalogue and pydantic: only when asked for

    try:
        loaded = load_inventory(path)
    except (InventoryError, OSError) as exc:
        raise CompareError(f"--inventory: {exc}") from None
    found = {}
    for (board, key), result in results.items():
        pair = loaded.boards.get(board)
        if pair is None:
            raise CompareError(f"--inventory {path}: no pair {board!r} (pairs: {', '.join(loaded.boards)})")
        try:
            spec = pair.spec_for(loaded.inventory, result.metric, result.params)
        except (KeyError, ValueError) as exc:
            raise CompareError(f"--inventory {path}: {board} {key}: {exc}") from None
        found[(board, key)] = Thresholds(spec.min_effect, spec.min_run_spread, spec.check_cv)
    return found


def _by_key(side: Side) -> dict[tuple[str, str], list[MetricResult]]:
    found: dict[tuple[str, str], list[MetricResult]] = {}
    for stored in side.runs:
        for result in stored.results:
            found.setdefault((result.board, result.key), []).append(result)
    return found


def compare_sides(
    reference: Side,
    candidate: Side,
    *,
    min_effect: float | None = None,
    inventory: Path | None = None,
    live: bool = False,
) -> Comparison:
    """`live`: the candidate is the run going on, whose inventory is in force (--reference-build)."""
    decision = gate.decide(
        _by_key(reference), _by_key(candidate), thresholds(reference, candidate, inventory, live=live), min_effect
    )
    return Comparison(
        _identity(reference), _identity(candidate), decision.gate, decision.summary, decision.rows, min_effect
    )


# --- the stored gates: one per build and board --------------------------------------------------------


def build_started(build: str, first_or_last: Any) -> Any:
    """When `build`'s first (func.min) or last (func.max) complete run started, as a scalar subquery."""
    return select(first_or_last(Run.started)).where(Run.build_name == build, Run.complete).scalar_subquery()


def other_rows(build: str, *columns: Any) -> Select[Any]:
    """`columns` of the matrix rows (a build, or a run without one) but `build`'s, grouped by row."""
    others = or_(Run.build_name.is_(None), Run.build_name != build)
    return select(*columns).where(Run.complete, others).group_by(Run.build_name, SOLO_RUN)


def previous(engine: Engine, build: str) -> tuple[str | None, str | None]:
    """The default reference of a build: the newest matrix row (build, or run without one) whose last run
    started before the build's first; (None, None) when there is none."""
    last = func.max(Run.started)
    query = other_rows(build, Run.build_name, SOLO_RUN).having(last < build_started(build, func.min))
    with engine.connect() as connection:
        found = connection.execute(query.order_by(last.desc()).limit(1)).first()
    return (found[0], found[1]) if found else (None, None)


def _side(engine: Engine, label: str, build: str | None, run_id: str | None, board: str | None) -> Side:
    """The newest GATE_RUNS complete runs of `build` (or the one run `run_id`), oldest first, with their results
    (on `board` only, when given) and samples."""
    runs = select(Run.id).where(Run.complete, Run.build_name == build if run_id is None else Run.id == run_id)
    if board is not None:
        runs = runs.where(select(Result.id).where(Result.run_id == Run.id, Result.board == board).exists())
    return Side(label, read.newest_runs(engine, runs, GATE_RUNS, board))  # as load_side's


def sides(
    engine: Engine, candidate: str, before: tuple[str | None, str | None], board: str | None = None
) -> tuple[Side, Side] | None:
    """The reference and candidate sides of `candidate`'s gate against `before` (a build, or (None, run id)), as a
    stored or shown gate compares them; None when there is no reference."""
    reference, reference_run = before
    label = reference if reference_run is None else f"run {reference_run}"
    if label is None:
        return None
    return _side(engine, label, reference, reference_run, board), _side(engine, candidate, candidate, None, board)


@dataclass(frozen=True)
class CellGate:
    """A build's stored gate on a board: what the matrix cell shows."""

    gate: Gate
    summary: str  # BLOCKED: the metrics and their changes; INCOMPLETE: what is missing
    reference: str | None  # the build it was compared with (or "run ID"); None: nothing stored before it


def decide_cell(engine: Engine, build: str, board: str, before: tuple[str | None, str | None]) -> CellGate:
    """`build`'s gate on `board` against `before`, the build before it (`previous`), as the gate page decides it."""
    found = sides(engine, build, before, board)
    if found is None:
        return CellGate(Gate.INCOMPLETE, "no reference: nothing stored before this build", None)
    reference, candidate = found
    if not reference.runs:
        return CellGate(Gate.INCOMPLETE, f"no reference: {reference.label} did not run on {board}", reference.label)
    try:
        comparison = compare_sides(reference, candidate)
    except CompareError as exc:
        return CellGate(Gate.INCOMPLETE, f"not comparable: {exc}", reference.label)
    return CellGate(comparison.gate, _cell_summary(comparison.rows), reference.label)


def _cell_summary(rows: list[Row]) -> str:
    """What decided a cell, short: the blocking metrics with their changes, else the first rows without a verdict."""
    blocked = [row for row in rows if row.gate is Gate.BLOCKED]
    shown = blocked or [row for row in rows if row.gate is Gate.INCOMPLETE]
    if not shown:
        return f"{len(rows)} metric{'s' if len(rows) != 1 else ''}: no regression"
    named = [f"{row.key} {_cell_why(row)}" for row in shown[:CELL_NAMES]]
    more = f" and {len(shown) - CELL_NAMES} more" if len(shown) > CELL_NAMES else ""
    return "; ".join(named) + more


def _cell_why(row: Row) -> str:
    """A row's reason in a cell: its change for a regression, the band's verdict for a band failure, the missing
    verdict, why it cannot tell, else what would make the row decidable (its reason's last clause)."""
    if row.regression and row.change is not None:
        return f"{row.change:+.1%}"
    if row.gate is Gate.BLOCKED:
        return f"band {row.band_verdict}"
    clauses = row.why.split("; ")
    if row.why.startswith("no verdict"):
        return row.why.split(": ")[0]
    return next((clause for clause in clauses if clause.startswith("cannot tell")), clauses[-1])


def refresh(engine: Engine, builds: set[str], boards: set[str] | None = None) -> int:
    """Decide and store the gates of `builds`, and of each build whose reference one of them is, on every board
    they ran (on `boards` only, when given: a run's own, as another pair's process may be deciding its own);
    how many gates were stored."""
    affected = set(builds) | {following for build in builds if (following := _next(engine, build)) is not None}
    stored = 0
    for build in sorted(affected):
        with engine.connect() as connection:
            ran = connection.scalars(
                select(Result.board)
                .join(Run, Run.id == Result.run_id)
                .where(Run.build_name == build, Run.complete)
                .distinct()
            ).all()
        before = previous(engine, build)  # one reference for every board of the build
        cells = {board: decide_cell(engine, build, board, before) for board in ran if boards is None or board in boards}
        with engine.begin() as connection:
            for board, cell in cells.items():
                connection.execute(delete(GateRow).where(GateRow.build == build, GateRow.board == board))
                row = {"build": build, "board": board, "gate": str(cell.gate), "summary": cell.summary}
                connection.execute(insert(GateRow).values(**row, reference=cell.reference, decided=datetime.now(UTC)))
        stored += len(cells)
    return stored


def _next(engine: Engine, build: str) -> str | None:
    """The build whose reference `build` is: the oldest build whose first run started after `build`'s last."""
    first = func.min(Run.started)
    query = other_rows(build, Run.build_name).where(Run.build_name.is_not(None))
    with engine.connect() as connection:
        found = connection.scalar(query.having(first > build_started(build, func.max)).order_by(first).limit(1))
    return found if found is not None and previous(engine, found) == (build, None) else None


def stored_cells(engine: Engine, builds: list[str]) -> dict[tuple[str, str], CellGate]:
    """The stored gates of `builds`, by (build, board)."""
    with engine.connect() as connection:
        rows = connection.execute(select(GateRow.__table__).where(GateRow.build.in_(builds))).all()
    return {(row.build, row.board): CellGate(Gate(row.gate), row.summary, row.reference) for row in rows}
