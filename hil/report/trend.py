"""The trend page: every metric's median over every complete run in the results database (hil.db).

    hil trend [--hil-db URL] -o reports/trend.html

One self-contained HTML file (PNG plots embedded): an overview table first (each metric's latest median
and verdict, and the last step its history shows), then per board, per metric key, the runs in time order.
Steps are change points of the run medians (hil.verdict.changepoint), named by the run and the build after
them, with their size and confidence. Plain module: no pytest.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import datetime
from html import escape
from pathlib import Path

from sqlalchemy import Engine

from hil.db import cli as db_cli
from hil.db.engine import DatabaseError
from hil.db.read import history
from hil.report.files import atomic_write_text
from hil.report.html import STYLE, verdict_cell
from hil.report.plots import TrendPoint, png_data_uri, trend_plot
from hil.report.store import StoredRun, utc_now
from hil.report.summary import fmt_num, fmt_pct, key_of
from hil.verdict.changepoint import Step, find_steps


def _label(started: str) -> str:
    try:
        return datetime.fromisoformat(started).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return started


def series(runs: Sequence[StoredRun]) -> dict[str, dict[str, list[TrendPoint]]]:
    """board -> metric key -> one point per run that measured it (with statistics)."""
    out: dict[str, dict[str, list[TrendPoint]]] = {}
    for stored in runs:
        for result in stored.results:
            if result.stats is None:
                continue  # an ERROR before two samples has no median to draw
            stats = result.stats
            point = TrendPoint(
                _label(stored.run.started),
                stats.median,
                stats.ci_low,
                stats.ci_high,
                result.band,
                result.verdict,
                (stored.run.build or {}).get("name"),
            )
            out.setdefault(result.board, {}).setdefault(key_of(result), []).append(point)
    return out


def _step_text(points: Sequence[TrendPoint], step: Step) -> str:
    after = points[step.index]
    build = f" (build {after.build})" if after.build else ""
    return (
        f"stepped at {after.label}{build}: {fmt_num(step.before)} -> {fmt_num(step.after)} "
        f"({fmt_pct(step.change, signed=True)}, confidence {step.confidence:.2%}, p {step.p_value:.2g})"
    )


def render(runs: Sequence[StoredRun], title: str = "hil trend") -> str:
    units = {(r.board, key_of(r)): r.unit for stored in runs for r in stored.results}
    directions = {(r.board, key_of(r)): r.direction for stored in runs for r in stored.results}
    min_effects = {(r.board, key_of(r)): r.min_effect for stored in runs for r in stored.results}  # the newest
    overview, sections = [], []
    for board, metrics in sorted(series(runs).items()):
        sections.append(f"<h2>{escape(board)}</h2>")
        for key, points in sorted(metrics.items()):
            unit = units[(board, key)]
            last = points[-1]
            steps = find_steps([p.median for p in points], min_effect=min_effects[(board, key)])
            stepped = _step_text(points, steps[-1]) if steps else ""
            anchor = escape(f"{board}-{key}", quote=True)
            overview.append(
                f"<tr><td>{escape(board)}</td><td><a href='#{anchor}'>{escape(key)}</a></td>"
                f"<td>{escape(fmt_num(last.median))} {escape(unit)}</td>{verdict_cell(last.verdict)}"
                f"<td>{len(points)}</td><td>{escape(stepped) or 'none'}</td></tr>"
            )
            png = trend_plot(points, unit, f"{board}  {key}", directions[(board, key)], [s.index for s in steps])
            sections.append(
                f"<h3 id='{anchor}'>{escape(key)}</h3>"
                f"<p>latest: median {escape(fmt_num(last.median))} {escape(unit)} "
                f"{verdict_cell(last.verdict, 'span')}, {len(points)} run(s)</p>"
                + "".join(f"<p>{escape(_step_text(points, step))}</p>" for step in steps)
                + f'<img src="{png_data_uri(png)}" alt="trend of {escape(key)} on {escape(board)}"/>'
            )
    if not sections:
        sections.append("<p>No run in the history has a measured metric yet.</p>")
    table = (
        "<table class='hil-summary'><tr><th>board</th><th>metric</th><th>latest median</th><th>verdict</th>"
        "<th>runs</th>"
        f"<th>last step</th></tr>{''.join(overview)}</table>"
        if overview
        else ""
    )
    span = f"{escape(runs[0].run.id)} … {escape(runs[-1].run.id)}" if runs else "none"
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'/>"
        f"<title>{escape(title)}</title>{STYLE}"
        "<style>body{font-family:Helvetica,Arial,sans-serif;font-size:13px;color:#222;margin:16px}"
        "h3{margin-bottom:2px}</style></head><body>"
        f"<h1>{escape(title)}</h1><p>{len(runs)} run(s): {span}; generated {escape(utc_now())}</p>"
        f"{table}{''.join(sections)}</body></html>\n"
    )


def write_trend(engine: Engine, output: Path, newest: int | None = None) -> Path:
    """The page of every complete run, or of the `newest` ones."""
    atomic_write_text(output, render(history(engine, limit=newest)))
    return output


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog or "python -m hil.report.trend", description=__doc__.splitlines()[0])
    db_cli.add_options(parser)
    parser.add_argument("-o", "--output", type=Path, default=Path("reports/trend.html"))
    args = parser.parse_args(argv)
    try:
        engine = db_cli.connect(args, create=False)
    except DatabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 4
    try:
        path = write_trend(engine, args.output)
    finally:
        engine.dispose()
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
