"""Board, build, metric and parameter names with markup, quotes and SQL in them, stored and served: every
dashboard page shows them verbatim and never as markup, and its links carry them intact."""

from __future__ import annotations

import html
import re

from sqlalchemy import text

from hil.dashboard.app import url
from hil.db.engine import connect
from hil.db.write import write_run
from hil.records.store import RunInfo
from hil.report.testing import example_result
from tests.report.test_hostile_names import HOSTILE, _hostile_result, _Page


class _Args:
    def __init__(self, reports):
        self.hil_db, self.hil_reports = None, reports


def _store(reports) -> list[RunInfo]:
    engine = connect(_Args(reports))
    runs = []
    for day, (build, base) in enumerate([("rc0", 40.0), ("rc0", 40.4), (HOSTILE, 30.1), (HOSTILE, 30.3)], start=1):
        info = RunInfo(id=f"2025110{day}T100000Z-{day:06d}", started=f"2025-11-0{day}T10:00:00+00:00")
        info.build = {"name": build, "version": HOSTILE}
        write_run(engine, info, [_hostile_result([base + d for d in (0.1, -0.2, 0.3, 0.0)])])
        runs.append(info)
    engine.dispose()
    return runs


def _shown_verbatim(page: str) -> None:
    parsed = _Page(page)
    assert "script" not in parsed.tags
    assert HOSTILE not in page and HOSTILE in "".join(parsed.text)


def test_every_page_shows_a_hostile_name_as_text_and_links_it_intact(tmp_path, serve):
    runs = _store(tmp_path)
    server = serve(tmp_path)
    status, matrix, _ = server.get("/")
    assert status == 200
    _shown_verbatim(matrix)
    gate_link = html.unescape(re.search(r'<a href="(/gate\?[^"]+)"', matrix).group(1))
    assert gate_link == url("/gate", candidate=HOSTILE, board=HOSTILE)  # the matrix links the hostile build
    result = _hostile_result([40.0])
    pages = {
        "gate": gate_link,
        "history": url("/history", board=HOSTILE, metric=HOSTILE, key=result.key),
        "run": url(f"/run/{runs[-1].id}"),
    }
    for name, path in pages.items():
        status, page, headers = server.get(path)
        assert status == 200, (name, page)
        assert headers["server-timing"].startswith("app;dur=")
        _shown_verbatim(page)
    _, gate, _ = server.get(gate_link)
    assert "BLOCKED" in gate  # the same comparison as hil compare: 25% slower than rc0


def test_a_stored_build_url_that_is_not_a_web_address_is_no_link_and_a_bad_page_number_is_400(tmp_path, serve):
    engine = connect(_Args(tmp_path))
    cis = {"js": {"BUILD_URL": "javascript:alert(document.cookie)//"}, "text": "BUILD_URL=x", "web": None}
    for number, (name, ci) in enumerate(cis.items(), start=1):
        info = RunInfo(id=f"2025110{number}T100000Z-{name}", started=f"2025-11-0{number}T10:00:00+00:00")
        info.command = "pytest testcases --html reports/report.html"
        info.host = {"ci": ci or {"BUILD_URL": "https://ci.example/job/hil/7/"}}
        write_run(engine, info, [_hostile_result([40.0])])
    engine.dispose()
    server = serve(tmp_path)
    pages = {name: server.get(f"/run/2025110{n}T100000Z-{name}") for n, name in enumerate(cis, start=1)}
    assert all(status == 200 for status, _, _ in pages.values()), pages
    assert "javascript:" not in pages["js"][1] and "artifact/" not in pages["js"][1]
    assert "artifact/" not in pages["text"][1]
    assert 'href="https://ci.example/job/hil/7/artifact/reports/report.html"' in pages["web"][1]
    for query in ("?page=99999999999999999999", "?page=-3", "?page=x", "?page=%C2%B2"):
        status, page, _ = server.get("/" + query)
        assert status == 400 and "page is a whole number from 0 to " in page, (query, page)
    assert server.get("/?page=1")[0] == 200


def test_forged_rows_a_null_median_a_listed_host_a_bogus_verdict_are_no_http_500(tmp_path, serve):
    """Rows an older hil or another tool left: a median stored as null is no point of the history; a host that is
    not a mapping and a verdict hil does not know are shown as stored, never an HTTP 500."""
    engine = connect(_Args(tmp_path))
    for day in (1, 2, 3):
        info = RunInfo(id=f"2025110{day}T100000Z-{day}", started=f"2025-11-0{day}T10:00:00+00:00")
        info.build = {"name": f"rc{day}", "version": ""}
        write_run(engine, info, [example_result(values=[40.0 + day, 40.5, 40.2])])
    with engine.begin() as connection:
        connection.execute(
            text(
                "UPDATE results SET stats = json_set(stats, '$.median', json('null')), median = NULL"
                " WHERE run_id = '20251101T100000Z-1'"
            )
        )
        connection.execute(text("UPDATE runs SET host = json('[1, 2]') WHERE id = '20251102T100000Z-2'"))
        connection.execute(text("UPDATE results SET verdict = 'BOGUS' WHERE run_id = '20251103T100000Z-3'"))
    engine.dispose()
    server = serve(tmp_path)
    result = example_result()
    history = url("/history", board=result.board, metric=result.metric, key=result.key)
    for path in ("/", history, "/run/20251102T100000Z-2", "/run/20251103T100000Z-3", url("/gate", candidate="rc3")):
        status, page, _ = server.get(path)
        assert status < 500, (path, page)
    status, page, _ = server.get(history)
    assert status == 200 and "rc2" in page and "BOGUS" in page  # the rows as stored, the plot of the one readable
    status, page, _ = server.get("/run/20251103T100000Z-3")
    assert status == 409 and "cannot read" in page and "BOGUS" in page
