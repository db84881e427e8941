"""Board, build, metric and parameter names with markup, quotes and SQL in them: every page hil writes shows
them as the text they are (the templates autoescape), never as markup."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from markupsafe import escape

from hil.db.gates import Side, compare_sides
from hil.records.store import RunInfo, StoredRun
from hil.report.compare import gate_banner, html
from hil.report.html import result_block, stats_table, summary_table
from hil.report.testing import example_result
from hil.report.trend import render
from hil.verdict.result import Verdict

HOSTILE = """<script>alert("x")</script>' OR 1=1; DROP TABLE runs; --"""


class _Page(HTMLParser):
    """The text a browser shows, and the elements it would build."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tags: set[str] = set()
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _hostile_result(values: list[float], verdict: Verdict = Verdict.PASS):
    return example_result(
        verdict, board=HOSTILE, metric=HOSTILE, params={HOSTILE: HOSTILE}, values=values, reason=HOSTILE,
        test_id=HOSTILE, facts={HOSTILE: HOSTILE}, error_output=HOSTILE,
    )  # fmt: skip


def _run(build: str, started: str, values: list[float]) -> StoredRun:
    run = RunInfo(id=f"{started}-{HOSTILE}", started=started, build={"name": build, "version": HOSTILE})
    return StoredRun(run, [_hostile_result(values)])


RUNS = [
    _run("rc0", f"2025-11-0{day}T10:00:00+00:00", [v + day / 5 for v in (40.1, 40.3, 39.9)]) for day in range(1, 5)
] + [_run(HOSTILE, f"2025-11-0{day}T10:00:00+00:00", [v + day / 5 for v in (30.2, 30.0, 29.8)]) for day in range(5, 9)]


def _pages() -> dict[str, str]:
    comparison = compare_sides(Side("rc0", RUNS[:4]), Side(HOSTILE, RUNS[4:]))
    result = _hostile_result([41.0, 41.5, 40.9])
    return {
        "summary": summary_table([result], HOSTILE),
        "result block": result_block(result, None, plot_error=HOSTILE),
        "statistics": stats_table(result),
        "trend": render(RUNS, title=HOSTILE),
        "gate": html(comparison),
        "gate banner": gate_banner(comparison),
    }


@pytest.mark.parametrize("name", list(_pages()))
def test_a_hostile_name_is_shown_verbatim_and_never_as_markup(name):
    page = _pages()[name]
    parsed = _Page(page)
    assert "script" not in parsed.tags
    assert HOSTILE not in page and str(escape(HOSTILE)) in page
    assert HOSTILE in "".join(parsed.text)  # what the reader sees is the name as it was given
