"""Baselines: an earlier release's samples per board, committed under `baselines/` and reviewed as diffs.

One file per board, pretty-printed and key-sorted so `git diff` shows exactly which metric moved:

    {"board": ..., "run": run_id, "created": iso time, "facts": {...},
     "metrics": {metric_key: {"unit": ..., "runs": [{"run": run_id, "samples": [...], "median": ...}]}}}

Each metric keeps the samples of its last few runs (each run its own boot): a comparison needs to know
how far clean runs move (hil.verdict.baseline). An update adds this run to each metric it measured
(replacing an earlier update from the same run) and keeps the newest `runs_kept`; metrics this run did
not measure keep theirs. Files of the one-run format before this one are read as one run.
Plain module: no pytest.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hil.report.files import UnreadableJson, atomic_write_text, dumps, read_json, read_text
from hil.report.store import utc_now
from hil.report.summary import key_of
from hil.verdict.result import MetricResult, Verdict


class BaselineFileError(ValueError):
    """A baseline file is unreadable or malformed; the message starts with the file's path."""


DEFAULT_RUNS_KEPT = 5


@dataclass
class BaselineRun:
    run: str  # the run these samples came from (may be older than the file's run after a merge)
    samples: list[float]
    median: float

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run, "samples": self.samples, "median": self.median}


@dataclass
class BaselineMetric:
    unit: str
    runs: list[BaselineRun]  # oldest first

    @property
    def samples(self) -> list[float]:
        return [value for run in self.runs for value in run.samples]

    @property
    def run(self) -> str:
        return self.runs[-1].run

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "runs": [run.to_dict() for run in self.runs]}


@dataclass
class Baseline:
    board: str
    run_id: str  # the run of the latest update
    created: str
    facts: dict[str, Any] = field(default_factory=dict)  # facts of the latest update's results
    metrics: dict[str, BaselineMetric] = field(default_factory=dict)

    def samples_for(self, key: str) -> list[float] | None:
        """All samples of the metric, its runs concatenated."""
        metric = self.metrics.get(key)
        return None if metric is None else metric.samples

    def runs_for(self, key: str) -> list[list[float]] | None:
        """The metric's samples, one list per run."""
        metric = self.metrics.get(key)
        return None if metric is None else [list(run.samples) for run in metric.runs]

    def run_medians(self) -> dict[str, list[float]]:
        """Every metric's run medians: what the run-to-run spread is estimated from."""
        return {key: [run.median for run in metric.runs] for key, metric in self.metrics.items()}

    def median_for(self, key: str) -> float | None:
        """The median of the metric's run medians."""
        metric = self.metrics.get(key)
        return None if metric is None else float(statistics.median(run.median for run in metric.runs))

    def run_for(self, key: str) -> str | None:
        """The runs a metric's samples came from: name this, not run_id, in a comparison."""
        metric = self.metrics.get(key)
        if metric is None:
            return None
        if len(metric.runs) == 1:
            return metric.runs[0].run
        return f"{len(metric.runs)} runs {metric.runs[0].run} .. {metric.runs[-1].run}"

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
    runs_held: tuple[int, int] = (0, 0)  # fewest and most runs a written metric now holds


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
    def __init__(self, directory: Path, runs_kept: int = DEFAULT_RUNS_KEPT) -> None:
        if runs_kept < 1:
            raise ValueError(f"a baseline keeps at least one run, got {runs_kept}")
        self.directory = directory
        self.runs_kept = runs_kept
        self._cache: dict[str, Baseline | None] = {}
        self.unreadable: list[str] = []  # problems of baseline files skipped by load()

    def path_for(self, board: str) -> Path:
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", board).lstrip(".") or "_"
        return self.directory / f"{safe}.json"

    def load(self, board: str) -> Baseline | None:
        """The board's baseline, None when it has none or it cannot be read; read once per store (one
        test session). An unreadable file is a warning in `unreadable` (naming it), never an error: the
        run's own verdicts stand without the comparison."""
        if board not in self._cache:
            path = self.path_for(board)
            try:
                self._cache[board] = _read(path, board) if path.exists() else None
            except BaselineFileError as exc:
                self.unreadable.append(str(exc))
                self._cache[board] = None
        return self._cache[board]

    def update(self, board: str, results: Iterable[MetricResult], run_id: str) -> BaselineUpdate:
        """Write this run's samples of `board` into its file, keeping the metrics it did not measure."""
        results = list(results)
        strangers = sorted({r.board for r in results if r.board != board})
        if strangers:
            raise ValueError(f"baseline of {board!r} given results of other boards: {', '.join(strangers)}")
        usable = [r for r in results if eligible(r)]
        path = self.path_for(board)
        old_text = read_text(path) if path.exists() else None
        previous = _read(path, board) if old_text is not None else None

        metrics = dict(previous.metrics) if previous else {}
        for result in usable:
            assert result.stats is not None  # eligible() checked it
            key = key_of(result)
            this_run = BaselineRun(run_id, result.values, result.stats.median)
            old = metrics.get(key)
            # A metric whose unit changed starts over: its old runs measured something else.
            earlier = [run for run in old.runs if run.run != run_id] if old and old.unit == result.unit else []
            metrics[key] = BaselineMetric(result.unit, [*earlier, this_run][-self.runs_kept :])
        skipped = tuple(sorted({key_of(r) for r in results if not eligible(r)}))
        written = tuple(sorted({key_of(r) for r in usable}))
        if not usable:
            return BaselineUpdate(path, board, "unchanged", written, skipped)

        held = [len(metrics[key].runs) for key in written]
        baseline = Baseline(board, run_id, utc_now(), _common_facts(usable), metrics)
        text = dumps(baseline.to_dict(), indent=2, sort_keys=True)
        atomic_write_text(path, text)
        self._cache[board] = baseline
        status: Literal["created", "updated", "unchanged"] = "created" if old_text is None else "updated"
        return BaselineUpdate(path, board, status, written, skipped, (min(held), max(held)))

    def update_all(self, results: Iterable[MetricResult], run_id: str) -> list[BaselineUpdate]:
        by_board: dict[str, list[MetricResult]] = {}
        for result in results:
            by_board.setdefault(result.board, []).append(result)
        return [self.update(board, mine, run_id) for board, mine in sorted(by_board.items())]


def _read(path: Path, board: str) -> Baseline:
    try:
        data = read_json(path)
    except UnreadableJson as exc:
        raise BaselineFileError(str(exc)) from exc
    try:
        baseline = _parse(data)
    except Exception as exc:  # any shape the file may take: it is named, never a traceback
        raise BaselineFileError(f"{path}: {type(exc).__name__}: {exc}") from exc
    if baseline.board != board:
        raise BaselineFileError(f"{path}: holds board {baseline.board!r}, expected {board!r}")
    return baseline


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{what}: {value!r} is not a finite number")
    return float(value)


def _parse_run(key: str, entry: Any) -> BaselineRun:
    if not isinstance(entry, dict):
        raise TypeError(f"metric {key!r}: a run is not an object")
    samples = entry["samples"]
    if not isinstance(samples, list) or not samples:
        raise ValueError(f"metric {key!r}: 'samples' must be a non-empty list")
    return BaselineRun(
        run=str(entry["run"]),
        samples=[_number(v, f"metric {key!r} sample") for v in samples],
        median=_number(entry["median"], f"metric {key!r} median"),
    )


def _parse(data: Any) -> Baseline:
    if not isinstance(data, dict):
        raise TypeError(f"expected a JSON object, found {type(data).__name__}")
    metrics = {}
    if not isinstance(data["metrics"], dict):
        raise TypeError("'metrics' is not an object")
    for key, entry in data["metrics"].items():
        if not isinstance(entry, dict):
            raise TypeError(f"metric {key!r} is not an object")
        # The one-run format before multi-run baselines: samples/median/run directly on the metric.
        runs = entry["runs"] if "runs" in entry else [{**entry, "run": entry.get("run", data["run"])}]
        if not isinstance(runs, list) or not runs:
            raise ValueError(f"metric {key!r}: 'runs' must be a non-empty list")
        metrics[key] = BaselineMetric(unit=str(entry["unit"]), runs=[_parse_run(key, run) for run in runs])
    if not isinstance(data.get("facts", {}), dict):
        raise TypeError("'facts' is not an object")
    return Baseline(
        board=str(data["board"]),
        run_id=str(data["run"]),
        created=str(data["created"]),
        facts=dict(data.get("facts", {})),
        metrics=metrics,
    )
