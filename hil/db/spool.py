"""What a run could not write to the database, kept in reports/db-spool/<run-id>.jsonl for `hil db push`.

One JSON object per line, appended and flushed as it happens: {"run": RunInfo, "database": where} first (the
database the run was writing to, as hil.db.engine.describe names it: never its password), then
{"ordinal": n, "result": MetricResult} per result, and {"finish": RunInfo, "result_count": n} at the end.
A line cut short by a crash is the last one and is ignored; the run's results.json has it anyway.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from hil.records.files import dumps, read_bytes
from hil.records.store import RunInfo
from hil.verdict.result import MetricResult

SPOOL_DIR = "db-spool"


class SpoolError(ValueError):
    """A spool file that cannot be read; the message names it."""


class Spooled(NamedTuple):
    info: RunInfo
    results: dict[int, MetricResult]  # by ordinal
    finished: tuple[RunInfo, int] | None  # (final run facts, result count) if the run finished
    database: str | None  # the database it was for (None: spooled by an earlier hil, which did not say)


class Spool:
    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, record: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as file:
            file.write(dumps(record))  # one line: dumps ends it
            file.flush()
            os.fsync(file.fileno())

    def read(self) -> Spooled:
        info: RunInfo | None = None
        database = None
        results: dict[int, MetricResult] = {}
        finished = None
        try:  # a regular file of bounded size: a FIFO named *.jsonl hung push, /dev/zero filled the memory
            lines = read_bytes(self.path).decode("utf-8").splitlines()
        except OSError as exc:  # hil.records.files names the path
            raise SpoolError(str(exc)) from None
        except UnicodeDecodeError as exc:
            raise SpoolError(f"{self.path}: not UTF-8: {exc}") from None
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
                if "run" in record:
                    info = RunInfo.from_dict(record["run"])
                    database = record.get("database", database)
                elif "result" in record:
                    results[int(record["ordinal"])] = MetricResult.from_dict(record["result"])
                elif "finish" in record:
                    finished = (RunInfo.from_dict(record["finish"]), int(record["result_count"]))
            except (ValueError, TypeError, KeyError) as exc:
                if number == len(lines):
                    break  # cut short by a crash while appending
                raise SpoolError(f"{self.path}: line {number}: {type(exc).__name__}: {exc}") from None
        if info is None:
            raise SpoolError(f"{self.path}: no run record")
        return Spooled(info, results, finished, database)


def spool_path(reports_dir: Path, run_id: str) -> Path:
    return reports_dir / SPOOL_DIR / f"{run_id}.jsonl"
