"""The trend page: every metric's median over every complete run in the results database (hil.db).

One self-contained HTML file (each plot inline SVG, as on the dashboard) of the newest N complete runs (a lab's
store of 10,000 runs took 165 s and 3.8 GB drawn whole with matplotlib): an overview table first, then per board
and metric key the runs in time order, with the steps of their medians (hil.verdict.changepoint).
Plain module: no pytest.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from sqlalchemy import Engine

from hil.db import engine as db_engine
from hil.db.engine import DatabaseError
from hil.db.read import history
from hil.errors import cannot_write
from hil.records.files import atomic_write_text
from hil.records.store import StoredRun, utc_now
from hil.report.pages import render as render_page
from hil.report.plots import TrendPoint
from hil.report.summary import fmt_num, fmt_pct
from hil.report.svg import SvgPlot, trend_svg
from hil.verdict.changepoint import Step, find_steps
from hil.verdict.result import MetricResult

DEFAULT_RUNS = 300  # the newest runs `hil trend` draws: every metric's recent history, in bounded time and memory
MAX_RUNS = 10**9  # --newest's largest (the database's LIMIT is a 64-bit integer)


def _label(started: str) -> str:
    try:
        return datetime.fromisoformat(started).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return started


def series(runs: Sequence[StoredRun]) -> dict[str, dict[str, list[TrendPoint]]]:
    """board -> metric key -> one point per run that measured it (with statistics)."""
    out: dict[str, dict[str, list[TrendPoint]]] = {}
    for stored in runs:
        label, build = _label(stored.run.started), (stored.run.build or {}).get("name")
        for result in stored.results:
            stats = result.stats
            if stats is None or not math.isfinite(stats.median):
                continue  # an ERROR before two samples has no median to draw, nor one stored as NaN
            point = TrendPoint(label, stats.median, stats.ci_low, stats.ci_high, result.band, result.verdict, build)
            out.setdefault(result.board, {}).setdefault(result.key, []).append(point)
    return out


class Labelled(Protocol):
    """A run's point as a step sentence names it (a TrendPoint, or a history's median on the dashboard)."""

    label: str
    build: str | None


def step_text(points: Sequence[Labelled], step: Step) -> str:
    after = points[step.index]
    build = f" (build {after.build})" if after.build else ""
    return (
        f"stepped at {after.label}{build}: {fmt_num(step.before)} -> {fmt_num(step.after)} "
        f"({fmt_pct(step.change, signed=True)}, confidence {step.confidence:.2%}, p {step.p_value:.2g})"
    )


@dataclass(frozen=True)
class MetricHistory:
    """One metric on one board over runs, as a page shows it: its points, its steps and its plot."""

    board: str
    key: str
    unit: str
    points: list[TrendPoint]
    steps: list[str]  # each step's sentence (step_text), oldest first
    plot: SvgPlot  # drawn by the page (templates/trend_svg.html)


def metric_history(board: str, key: str, points: list[TrendPoint], sample: MetricResult) -> MetricHistory:
    """`sample`: the newest result of the metric, for its unit, direction and min_effect."""
    steps = find_steps([p.median for p in points], min_effect=sample.min_effect)
    plot = trend_svg(points, steps, sample.unit, sample.direction)
    return MetricHistory(board, key, sample.unit, points, [step_text(points, s) for s in steps], plot)


def render(runs: Sequence[StoredRun], title: str = "hil trend") -> str:
    newest = {(r.board, r.key): r for stored in runs for r in stored.results}
    metrics = [
        metric_history(board, key, points, newest[(board, key)])
        for board, by_key in sorted(series(runs).items())
        for key, points in sorted(by_key.items())
    ]
    span = f"{runs[0].run.id} … {runs[-1].run.id}" if runs else "none"
    return render_page("trend.html", title=title, runs=len(runs), span=span, generated=utc_now(), metrics=metrics)


def write_trend(engine: Engine, output: Path, newest: int | None = None) -> Path:
    """The page of every complete run, or of the `newest` ones."""
    atomic_write_text(output, render(history(engine, limit=newest)))
    return output


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog or "python -m hil.report.trend", description=__doc__.splitlines()[0])
    db_engine.add_options(parser)
    parser.add_argument("-o", "--output", type=Path, default=Path("reports/trend.html"))
    parser.add_argument(
        "--newest",
        type=int,
        default=DEFAULT_RUNS,
        metavar="N",
        help=f"the newest N runs (default {DEFAULT_RUNS}; 0: all)",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.newest <= MAX_RUNS:
        parser.error(f"--newest {args.newest}: a number of runs up to {MAX_RUNS:,}, 0 for all")
    try:
        engine = db_engine.connect(args, create=False)
    except DatabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 4
    try:
        path = write_trend(engine, args.output, newest=args.newest or None)
    except OSError as exc:
        print(f"error: {cannot_write(args.output, exc)}", file=sys.stderr)
        return 4
    finally:
        engine.dispose()
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
