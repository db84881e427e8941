"""The results database's tables: runs, their results and samples, baselines and stored gates.

How a run is written (complete once all its results are in) is hil.db.write's. Changing a table means a new
migration under migrations/versions (`hil db upgrade` applies it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


class Base(DeclarativeBase):
    type_annotation_map: ClassVar = {dict[str, Any]: JSON}


class Run(Base):
    __tablename__ = "runs"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    started: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    exit_status: Mapped[int | None]
    aborted_by: Mapped[str | None] = mapped_column(String(32))
    # Set by finish: how many results the run reported; complete once that many rows are in.
    result_count: Mapped[int | None]
    complete: Mapped[bool] = mapped_column(default=False)
    hil_version: Mapped[str] = mapped_column(String(64))
    command: Mapped[str] = mapped_column(Text, default="")
    host: Mapped[dict[str, Any]] = mapped_column(default=dict)  # the lab PC's facts (hil.records.store.host_facts)
    tests: Mapped[dict[str, Any]] = mapped_column(default=dict)  # tests per outcome
    build_name: Mapped[str | None] = mapped_column(String(255))
    build_version: Mapped[str | None] = mapped_column(String(255))
    build: Mapped[dict[str, Any] | None]  # the whole identity: image hashes, kernel, manifest
    inventory_path: Mapped[str | None] = mapped_column(Text)
    inventory_sha256: Mapped[str | None] = mapped_column(String(64))
    # board -> metric key -> what its results were judged by (unit, direction, band, min_effect, run_spread)
    inventory_bands: Mapped[dict[str, Any]] = mapped_column(default=dict)

    results: Mapped[list[Result]] = relationship(back_populates="run", order_by="Result.ordinal")

    __table_args__ = (Index("ix_runs_build_name", "build_name", "started"), Index("ix_runs_started", "started"))


class Result(Base):
    __tablename__ = "results"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    ordinal: Mapped[int]  # the result's place in its run: with run_id, what makes a write idempotent
    run_started: Mapped[datetime] = mapped_column(DateTime(timezone=True))  # the run's, for the history index
    board: Mapped[str] = mapped_column(String(255))  # the pair
    board_identity: Mapped[dict[str, Any] | None]  # what the result's facts say of the board (kernel, serial)
    metric: Mapped[str] = mapped_column(String(255))
    params: Mapped[dict[str, Any]]
    params_key: Mapped[str] = mapped_column(Text)  # hil.verdict.result.metric_key: metric[name=value,...]
    unit: Mapped[str] = mapped_column(String(64))
    direction: Mapped[str] = mapped_column(String(16))
    stats: Mapped[dict[str, Any] | None]
    median: Mapped[float | None] = mapped_column(Float)
    band: Mapped[dict[str, Any] | None]
    max_cv: Mapped[float] = mapped_column(Float)
    min_effect: Mapped[float] = mapped_column(Float)
    min_run_spread: Mapped[float] = mapped_column(Float)
    verdict: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    stop_reason: Mapped[str] = mapped_column(String(32))
    side: Mapped[str | None] = mapped_column(String(8))
    ceiling: Mapped[dict[str, Any] | None]
    efficiency: Mapped[float | None] = mapped_column(Float)
    baseline: Mapped[dict[str, Any] | None]
    facts: Mapped[dict[str, Any]]
    started: Mapped[float] = mapped_column(Float)
    finished: Mapped[float] = mapped_column(Float)
    test_id: Mapped[str] = mapped_column(Text)
    error_output: Mapped[str] = mapped_column(Text)

    run: Mapped[Run] = relationship(back_populates="results")
    samples: Mapped[list[SampleRow]] = relationship(order_by="SampleRow.position", cascade="all, delete-orphan")

    __table_args__ = (
        UniqueConstraint("run_id", "ordinal", name="uq_results_run_ordinal"),
        Index("ix_results_history", "board", "metric", "params_key", "run_started"),
    )


class SampleRow(Base):
    __tablename__ = "samples"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    result_id: Mapped[int] = mapped_column(ForeignKey("results.id", ondelete="CASCADE"), index=True)
    position: Mapped[int]  # order within the result; warmup samples are kept apart by `warmup`
    warmup: Mapped[bool] = mapped_column(default=False)
    value: Mapped[float] = mapped_column(Float)
    started: Mapped[float] = mapped_column(Float)  # epoch seconds
    duration_s: Mapped[float] = mapped_column(Float)
    raw: Mapped[str] = mapped_column(Text, default="")
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
    observed: Mapped[dict[str, Any]] = mapped_column(default=dict)

    __table_args__ = (UniqueConstraint("result_id", "warmup", "position", name="uq_samples_result_position"),)


class BaselineRow(Base):
    """One run's samples of a metric in a board pair's baseline (`--update-baseline`, `hil db import`): the
    baseline of (board, params_key) is its rows, the newest `--baseline-runs` kept, oldest first by id."""

    __tablename__ = "baselines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    board: Mapped[str] = mapped_column(String(255))
    params_key: Mapped[str] = mapped_column(Text)  # hil.verdict.result.metric_key
    unit: Mapped[str] = mapped_column(String(64))
    run_id: Mapped[str] = mapped_column(String(64))  # the run the samples came from
    # The result they are, when it is stored (a baseline file imported without its run has none).
    result_id: Mapped[int | None] = mapped_column(ForeignKey("results.id", ondelete="SET NULL"))
    samples: Mapped[list[float]] = mapped_column(JSON)
    median: Mapped[float] = mapped_column(Float)
    set_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    set_by: Mapped[str] = mapped_column(Text)  # user@host, and the command when it was an import

    __table_args__ = (UniqueConstraint("board", "params_key", "run_id", name="uq_baselines_board_key_run"),)


class GateRow(Base):
    """A build's release gate on a board against the build before it (hil.db.gates.refresh): what the dashboard's
    matrix cell shows. Decided again whenever a run of the build or of its reference is stored."""

    __tablename__ = "gates"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    build: Mapped[str] = mapped_column(String(255))  # the candidate
    board: Mapped[str] = mapped_column(String(255))
    reference: Mapped[str | None] = mapped_column(String(255))  # a build, or "run ID"; None: nothing before it
    gate: Mapped[str] = mapped_column(String(16))  # PASS, BLOCKED, INCOMPLETE
    summary: Mapped[str] = mapped_column(Text)  # the blocking metrics and their changes, or what is missing
    decided: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (UniqueConstraint("build", "board", name="uq_gates_build_board"),)
