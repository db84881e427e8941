"""The dashboard's routes: the build x board matrix, a metric's history, a gate, a run. GET only.

Every page renders the report's templates (hil.report.pages: autoescaped); every response carries its
server time in a Server-Timing header (what benchmarks/dashboard_pages.py reads).
"""

from __future__ import annotations

import argparse
import shlex
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from markupsafe import Markup
from sqlalchemy import Engine
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Route

from hil.dashboard import queries
from hil.db import convert, gates
from hil.db.gates import CompareError, compare_sides
from hil.records.files import UnreadableJson, read_json
from hil.records.store import RESULTS_FILE, StoredRun
from hil.report.compare import GATE_COLOUR, html
from hil.report.html import stats_rows, summary_table
from hil.report.pages import render
from hil.report.plots import TrendPoint
from hil.report.svg import trend_svg
from hil.report.trend import step_text
from hil.verdict.changepoint import find_steps
from hil.verdict.gate import Gate
from hil.verdict.result import Verdict
from hil.verdict.spec import Band, Direction

MAX_PAGE = 10**9


class ServerTiming(BaseHTTPMiddleware):
    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        start = time.perf_counter()
        response = await call_next(request)
        response.headers["Server-Timing"] = f"app;dur={(time.perf_counter() - start) * 1000:.1f}"
        return response


def url(path: str, **query: Any) -> str:
    """A dashboard link; its query values are encoded (a name may hold & = # or anything else)."""
    given = {name: value for name, value in query.items() if value is not None}
    return f"{path}?{urlencode(given)}" if given else path


def _page(request: Request) -> int | None:
    """The page asked for (0 when none is); None for anything but a whole number from 0 to MAX_PAGE (a bigger
    offset overflows the database's)."""
    text = request.query_params.get("page", "0")
    number = int(text) if text.isascii() and text.isdecimal() and len(text) <= len(str(MAX_PAGE)) else -1
    return number if 0 <= number <= MAX_PAGE else None


def _bad_page() -> HTMLResponse:
    return _html("message.html", 400, title="bad request", message=f"page is a whole number from 0 to {MAX_PAGE}")


def _html(template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    page = {"nav": True, "url": url, "gate_colours": GATE_COLOUR} | context
    return HTMLResponse(render(template, **page), status_code=status_code)


def _missing(what: str) -> HTMLResponse:
    return _html("message.html", 404, title="not found", message=what)


def _unreadable(exc: Exception) -> HTMLResponse:
    """A stored row hil cannot read (a value another tool or a hand edit left, such as an unknown verdict)."""
    message = f"a stored result or run hil cannot read (written by another tool?): {exc}"
    return _html("message.html", 409, title="unreadable run", message=message)


def create_app(engine: Engine, reports_dir: Path) -> Starlette:
    def matrix_page(request: Request) -> Response:
        page, build, board = _page(request), request.query_params.get("build"), request.query_params.get("board")
        if build:  # jump to the page that shows it
            page = queries.page_of(engine, build)
            if page is None:
                return _missing(f"no complete run of build {build}")
        if page is None:
            return _bad_page()
        rows, boards, more = queries.matrix(engine, page)
        return _html(
            "matrix.html",
            title="hil: builds x boards",
            rows=rows,
            boards=[board] if board in boards else boards,  # one board's column when asked
            every_board=boards,
            chosen_board=board if board in boards else None,
            build=build,
            page=page,
            more=more,
        )

    def history_page(request: Request) -> Response:
        board, metric, key = (request.query_params.get(name) for name in ("board", "metric", "key"))
        if board is None or metric is None or key is None:
            return _missing("a history needs board, metric and key")
        page = _page(request)
        if page is None:
            return _bad_page()
        rows, more = queries.history(engine, board, metric, key, page)
        if not rows:
            return _missing(f"no stored result of {key} on {board}")
        points = [point for row in rows if (point := _point(row)) is not None]
        newest = rows[-1].result
        steps = find_steps([p.median for p in points], min_effect=newest.min_effect)
        every = queries.medians(engine, board, metric, key)  # the whole history's steps, each with its page
        all_steps = [
            (step_text(every, step), (len(every) - 1 - step.index) // queries.HISTORY_PAGE)
            for step in find_steps([m.median for m in every], min_effect=newest.min_effect)
        ]
        return _html(
            "history.html",
            title=f"hil: {key} on {board}",
            board=board,
            metric=metric,
            key=key,
            rows=rows,
            points=points,
            unit=newest.unit,
            steps=[step_text(points, step) for step in steps],
            all_steps=all_steps,
            runs_in_all=len(every),
            svg=trend_svg(points, steps, newest.unit, Direction(newest.direction)) if points else None,
            page=page,
            more=more,
        )

    def gate_page(request: Request) -> Response:
        query = request.query_params
        candidate = query.get("candidate")
        if not candidate:
            return _missing("a gate needs a candidate build")
        board = query.get("board") or None
        reference, reference_run = query.get("reference") or None, query.get("reference_run") or None
        if reference is None and reference_run is None:
            reference, reference_run = gates.previous(engine, candidate)
        show = query.get("show") if query.get("show") in {str(g) for g in Gate} else None
        context = {
            "board": board,
            "show": show,
            "candidate_build": candidate,
            "reference_build": reference or "",
            "reference_run": reference_run,
        }
        try:
            found = gates.sides(engine, candidate, (reference, reference_run), board)
        except (ValueError, TypeError) as exc:
            return _unreadable(exc)
        if found is None:
            return _html("message.html", 404, title="no reference", message=f"nothing stored before {candidate}")
        for side in found:
            if not side.runs:
                return _missing(f"no complete run of {side.label}" + (f" on {board}" if board else ""))
        try:
            comparison = compare_sides(*found)
        except CompareError as exc:
            return _html("message.html", 409, title="not comparable", message=str(exc), **context)
        metrics = {(r.board, r.key): r.metric for side in found for stored in side.runs for r in stored.results}
        return HTMLResponse(html(comparison, nav=True, url=url, gate_colours=GATE_COLOUR, metrics=metrics, **context))

    def run_page(request: Request) -> Response:
        run_id = request.path_params["run_id"]
        try:
            found = queries.run(engine, run_id)
        except (ValueError, TypeError) as exc:
            return _unreadable(exc)
        if found is None:
            return _missing(f"no run {run_id}")
        stored, complete = found
        return _html(
            "run.html",
            title=f"hil: run {run_id}",
            stored=stored,
            complete=complete,
            summary=Markup(summary_table(stored.results)),
            stats_rows=stats_rows,
            reports=report_links(stored, reports_dir),
        )

    def report_page(request: Request) -> Response:
        if local_report(reports_dir, request.path_params["run_id"]) is None:
            return _missing("this run's report is not in the reports directory (a later run replaced it)")
        return FileResponse(reports_dir / "report.html")

    return Starlette(
        routes=[
            Route("/", matrix_page),
            Route("/history", history_page),
            Route("/gate", gate_page),
            Route("/run/{run_id}", run_page),
            Route("/run/{run_id}/report", report_page),
        ],
        middleware=[Middleware(ServerTiming)],
    )


def _point(row: queries.HistoryRow) -> TrendPoint | None:
    """The row's point on the plot; None for none to draw: no statistics (an ERROR before two samples), a median
    stored as null (NaN, by an older hil), a verdict hil does not know (a row another tool wrote)."""
    result, stats = row.result, row.result.stats or {}
    figures = [stats.get(name) for name in ("median", "ci_low", "ci_high")]
    if not all(isinstance(x, int | float) for x in figures) or result.verdict not in set(Verdict):
        return None
    label = convert.iso(row.started)[:16].replace("T", " ") if row.started else ""
    band = Band(**result.band) if result.band else None
    return TrendPoint(label, *figures, band, Verdict(result.verdict), row.build)


def local_report(reports_dir: Path, run_id: str) -> Path | None:
    """The reports directory's report.html when its results.json is this run's (the next run replaces both)."""
    try:
        document = read_json(reports_dir / RESULTS_FILE)
    except (UnreadableJson, OSError):
        return None
    ours = isinstance(document, dict) and (document.get("run") or {}).get("id") == run_id
    return reports_dir / "report.html" if ours and (reports_dir / "report.html").is_file() else None


def report_links(stored: StoredRun, reports_dir: Path) -> list[tuple[str, str]]:
    """Where the run's report is: in the reports directory while it is the newest run's, and in the Jenkins
    build's archived artifacts when the run ran in one (the --html path its command gave)."""
    links = []
    if local_report(reports_dir, stored.run.id) is not None:
        links.append(("report", f"/run/{stored.run.id}/report"))
    ci = stored.run.host.get("ci")
    build_url = ci.get("BUILD_URL") if isinstance(ci, dict) else None
    html_path = _html_option(stored.run.command)
    # a stored BUILD_URL is the run's word, not the dashboard's: only a web address becomes a link
    web = isinstance(build_url, str) and urlsplit(build_url).scheme in ("http", "https")
    if web and html_path:
        links.append(("report in Jenkins' artifacts", f"{build_url.rstrip('/')}/artifact/{html_path}"))
    return links


def _html_option(command: str) -> str | None:
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    parser.add_argument("--html")
    try:
        known, _ = parser.parse_known_args(shlex.split(command))
    except (ValueError, argparse.ArgumentError):
        return None
    return known.html
