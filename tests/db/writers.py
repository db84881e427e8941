"""Concurrent writers, as parallel Jenkins branches are: each a process with its own run (tests/db and the
benchmark)."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path
from typing import Any

from hil.db.engine import DatabaseError, open_db
from hil.db.spool import Spool
from hil.db.write import RunWriter
from hil.records.store import RunInfo
from hil.report.testing import example_result


def write_one_run(url: str, results: int, spool_dir: str) -> tuple[str, list[float]]:
    """A run of `results` results written one at a time; its id and each write's seconds."""
    engine = open_db(url)
    info = RunInfo.start("pytest testcases", build={"name": "concurrent", "version": "1"})
    writer = RunWriter(engine, info, Spool(Path(spool_dir) / f"{info.id}.jsonl"))
    writer.begin()
    times = []
    for index in range(results):
        result = example_result(params={"bs": "1M", "n": index}, values=[41.0, 41.5, 40.8, 41.2], warmup=())
        start = time.perf_counter()
        writer.add(result)
        times.append(time.perf_counter() - start)
    writer.finish()
    assert writer.failure is None, writer.failure
    engine.dispose()
    return info.id, times


def concurrent_runs(url: str, writers: int, results: int, spool_dir: Path) -> list[tuple[str, list[float]]]:
    open_db(url).dispose()  # the schema first: `hil db upgrade` before a lab's branches start
    with multiprocessing.get_context("spawn").Pool(writers) as pool:
        return pool.starmap(write_one_run, [(url, results, str(spool_dir))] * writers)


def open_at_once(url: str, barrier: Any) -> str:
    """Open `url` (an empty database: the schema is made) the moment every other process does; what it said."""
    barrier.wait()
    try:
        open_db(url).dispose()
    except DatabaseError as exc:
        return str(exc)
    return "opened"
