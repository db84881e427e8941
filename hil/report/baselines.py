"""Baselines: an earlier release's samples per board, committed under `baselines/` and reviewed as diffs.

One file per board, pretty-printed and key-sorted so `git diff` shows exactly which metric moved:

    {"board": ..., "run": run_id, "created": iso time, "facts": {...},
     "metrics": {metric_key: {"unit": ..., "samples": [...], "median": ..., "run": run_id}}}

An update merges into the board's file: metrics this run did not measure keep their old samples, so
each metric also records the run its samples came from. Plain module: no pytest.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hil.report.files import atomic_write_text, dumps
from hil.report.store import utc_now
from hil.report.summary import key_of
from hil.verdict.result import MetricResult, Verdict


class BaselineFileError(ValueError):
    """A baseline file is unreadable or malformed; the message starts with the file's path."""


@dataclass
class BaselineMetric:
    unit: str
    samples: list[float]
    median: float
    run: str  # the run these samples came from (may be older than the file's run after a merge)

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "samples": self.samples, "median": self.median, "run": self.run}


@dataclass
class Baseline:
    board: str
    run_id: str  # the run of the latest update
    created: str
    facts: dict[str, Any] = field(default_factory=dict)  # facts of the latest update's results
    metrics: dict[str, BaselineMetric] = field(default_factory=dict)

    def samples_for(self, key: str) -> list[float] | None:
        metric = self.metrics.get(key)
        return None if metric is None else list(metric.samples)

    def median_for(self, key: str) -> float | None:
        metric = self.metrics.get(key)
        return None if metric is None else metric.median

    def run_for(self, key: str) -> str | None:
        """The run a metric's samples came from: name this, not run_id, in a comparison."""
        metric = self.metrics.get(key)
        return None if metric is None else metric.run

    def to_dict(self) -> dict[str, Any]:
        return {
            "board": self.board,
            "run": self.run_id,
            "created": self.created,
            "facts": self.facts,
            "metrics": {key: metric.to_dict() for key, metric in self.metrics.items()},
        }


@dataclass(frozen=True)
class BaselineUpdate:
    path: Path
    board: str
    status: Literal["created", "updated", "unchanged"]
    written: tuple[str, ...]  # metric keys written from this run
    skipped: tuple[str, ...]  # metric keys of this run left out (ERROR, or fewer than two samples)


def eligible(result: MetricResult) -> bool:
    """An untrustworthy measurement (ERROR) or a lone sample is no reference for later releases."""
    return result.verdict is not Verdict.ERROR and result.stats is not None and len(result.values) >= 2


def _common_facts(results: list[MetricResult]) -> dict[str, Any]:
    """Facts every result agrees on (kernel, tool versions); per-metric ones (link speed) differ."""
    if not results:
        return {}
    common = dict(results[0].facts)
    for result in results[1:]:
        common = {k: v for k, v in common.items() if k in result.facts and result.facts[k] == v}
    return common


class BaselineStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._cache: dict[str, Baseline | None] = {}

    def path_for(self, board: str) -> Path:
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", board).lstrip(".") or "_"
        return self.directory / f"{safe}.json"

    def load(self, board: str) -> Baseline | None:
        """The board's baseline, None when it has none; read once per store (one test session)."""
        if board not in self._cache:
            path = self.path_for(board)
            self._cache[board] = _read(path, board) if path.exists() else None
        return self._cache[board]

    def update(self, board: str, results: Iterable[MetricResult], run_id: str) -> BaselineUpdate:
        """Write this run's samples of `board` into its file, keeping the metrics it did not measure."""
        results = list(results)
        strangers = sorted({r.board for r in results if r.board != board})
        if strangers:
            raise ValueError(f"baseline of {board!r} given results of other boards: {', '.join(strangers)}")
        usable = [r for r in results if eligible(r)]
        path = self.path_for(board)
        old_text = path.read_text(encoding="utf-8") if path.exists() else None
        previous = _read(path, board) if old_text is not None else None

        metrics = dict(previous.metrics) if previous else {}
        for result in usable:
            assert result.stats is not None  # eligible() checked it
            metrics[key_of(result)] = BaselineMetric(result.unit, result.values, result.stats.median, run_id)
        skipped = tuple(sorted({key_of(r) for r in results if not eligible(r)}))
        written = tuple(sorted({key_of(r) for r in usable}))
        if not usable:
            return BaselineUpdate(path, board, "unchanged", written, skipped)

        baseline = Baseline(board, run_id, utc_now(), _common_facts(usable), metrics)
        text = dumps(baseline.to_dict(), indent=2, sort_keys=True)
        atomic_write_text(path, text)
        self._cache[board] = baseline
        status: Literal["created", "updated", "unchanged"] = "created" if old_text is None else "updated"
        return BaselineUpdate(path, board, status, written, skipped)

    def update_all(self, results: Iterable[MetricResult], run_id: str) -> list[BaselineUpdate]:
        by_board: dict[str, list[MetricResult]] = {}
        for result in results:
            by_board.setdefault(result.board, []).append(result)
        return [self.update(board, mine, run_id) for board, mine in sorted(by_board.items())]


def _read(path: Path, board: str) -> Baseline:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineFileError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise BaselineFileError(f"{path}: not valid JSON: {exc}") from exc
    try:
        baseline = _parse(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise BaselineFileError(f"{path}: {type(exc).__name__}: {exc}") from exc
    if baseline.board != board:
        raise BaselineFileError(f"{path}: holds board {baseline.board!r}, expected {board!r}")
    return baseline


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{what}: {value!r} is not a finite number")
    return float(value)


def _parse(data: Any) -> Baseline:
    if not isinstance(data, dict):
        raise TypeError(f"expected a JSON object, found {type(data).__name__}")
    metrics = {}
    if not isinstance(data["metrics"], dict):
        raise TypeError("'metrics' is not an object")
    for key, entry in data["metrics"].items():
        samples = entry["samples"]
        if not isinstance(samples, list) or not samples:
            raise ValueError(f"metric {key!r}: 'samples' must be a non-empty list")
        metrics[key] = BaselineMetric(
            unit=str(entry["unit"]),
            samples=[_number(v, f"metric {key!r} sample") for v in samples],
            median=_number(entry["median"], f"metric {key!r} median"),
            run=str(entry.get("run", data["run"])),  # hand-written files may leave it to the top level
        )
    if not isinstance(data.get("facts", {}), dict):
        raise TypeError("'facts' is not an object")
    return Baseline(
        board=str(data["board"]),
        run_id=str(data["run"]),
        created=str(data["created"]),
        facts=dict(data.get("facts", {})),
        metrics=metrics,
    )
