import math
import re

import pytest

from hil.report.html import correct_run_count, result_block, stats_table, summary_table
from hil.report.summary import fmt_num, fmt_p, fmt_pct, terminal_table, verdict_counts
from hil.report.testing import example_result
from hil.verdict.result import Verdict


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (3219.4, "3219"),
        (110.23, "110.2"),
        (53.4712, "53.47"),
        (0.012345, "0.0123"),
        (None, "–"),
        (math.nan, "–"),
        (-2.5, "-2.50"),
    ],
)
def test_fmt_num(value, text):
    assert fmt_num(value) == text


def test_fmt_pct_and_p():
    assert fmt_pct(0.0553) == "5.5%"
    assert fmt_pct(-0.031, signed=True) == "-3.1%"
    assert fmt_p(0.0042) == "0.0042"
    assert fmt_p(1e-5) == "<0.001"


def test_terminal_table_is_aligned_and_ordered():
    results = [
        example_result(Verdict.FAIL, board="b2", params={"bs": "4k"}),
        example_result(Verdict.PASS, board="b1", params={"bs": "1M"}, values=[3219.0, 3300.0]),
        example_result(Verdict.ERROR, board="b1", params={"bs": "64k"}, values=[]),
    ]
    lines = terminal_table(results)
    header, rows = lines[0], lines[1:]
    assert header[1] is None
    assert header[0].split() == ["board", "metric", "median", "unit", "band", "CV", "n", "verdict", "stop"]
    assert [row[1] for row in rows] == [Verdict.PASS, Verdict.ERROR, Verdict.FAIL]  # board, key order
    assert rows[0][0].split()[:4] == ["b1", "usb.msc.read[bs=1M]", "3260", "MB/s"]
    assert rows[1][0].split()[2] == "–"  # no statistics, no median
    # Numbers right-aligned: the verdict column starts at the same offset on every line.
    starts = {line.index(str(verdict)) for line, verdict in rows}
    assert len(starts) == 1


def test_verdict_counts():
    results = [example_result(Verdict.PASS), example_result(Verdict.PASS), example_result(Verdict.ERROR)]
    assert verdict_counts(results) == "2 PASS, 1 ERROR"
    unstable = [example_result(Verdict.UNSTABLE), example_result(Verdict.UNSTABLE, baseline_median=50, regression=True)]
    assert verdict_counts([*results, *unstable]) == "2 PASS, 1 UNSTABLE, 1 UNSTABLE+REGRESSION, 1 ERROR"


def test_summary_table_html():
    results = [
        example_result(Verdict.PASS, test_id="t.py::a"),
        example_result(Verdict.FAIL, board="<b>", params={"q": "1&2"}),
    ]
    html = summary_table(results)
    assert 'id="hil-summary"' in html
    assert "<td>&lt;b&gt;</td>" in html and "<td><b></td>" not in html
    assert "usb.msc.read[q=1&amp;2]" in html
    assert "41.35 ± 1.88" in html  # median ± half the CI of the mean
    assert re.search(r'class="hil-verdict" style="background:#c62828">FAIL<', html)
    assert 'title="t.py::a"' in html
    assert summary_table([]) == ""


def test_the_html_summary_puts_errors_failures_and_regressions_first():
    results = [
        example_result(Verdict.PASS, board="a"),
        example_result(Verdict.MARGINAL, board="a", params={"bs": "64K"}),
        example_result(Verdict.UNSTABLE, board="b", baseline_median=60.0, regression=True),  # regressed too
        example_result(Verdict.FAIL, board="c"),
        example_result(Verdict.ERROR, board="d", values=[]),
    ]
    html = summary_table(results)
    order = [html.index(f"<td>{board}</td>") for board in ("d", "c", "b")]
    assert order == sorted(order) and order[-1] < html.index("usb.msc.read[bs=64K]") < html.index(">PASS<")


def test_stats_table_shows_the_figures_behind_the_verdict():
    result = example_result(Verdict.REGRESSION, baseline_median=44.0)
    html = stats_table(result)
    for text in (
        "median",
        "41.35 MB/s",
        "CV",
        "5.5% (max 5.0%)",
        "95% CI of mean",
        "#8=35.20",
        "78.0% of ceiling 53.00 MB/s",
        "-6.0% vs median 44.00",
        "(n=10, 1 run, last 20251101T120000Z-abc123)",
        "p=0.004 (alpha 0.01), run-to-run spread unknown, min effect 5.0%: REGRESSION",
        "480M",
        "kernel=6.1.0-27-amd64",
        "warm-up",
    ):
        assert text in html, text


def test_result_block_embeds_plot_and_raw_output():
    block = result_block(example_result(Verdict.ERROR, error_output="<garbage>"), "data:image/png;base64,AAA")
    assert '<img src="data:image/png;base64,AAA"' in block
    assert '<pre class="hil-raw">&lt;garbage&gt;</pre>' in block


def test_terminal_table_shows_baseline_change_p_and_runs_when_compared():
    compared = example_result(Verdict.REGRESSION, baseline_median=44.0, baseline_runs=3, run_p=0.0004)
    plain = example_result(Verdict.PASS, params={"bs": "4K"})
    header, *rows = (line for line, _ in terminal_table([compared, plain]))
    assert header.split()[6:13] == ["n", "vs", "base", "p", "run", "p", "runs"]
    # the band "[38, 48]" is two words
    assert rows[0].split()[8:12] == ["-6.0%", "0.004", "<0.001", "3"]
    assert rows[1].split()[8:12] == ["–", "–", "–", "–"]  # this one had no baseline
    assert "vs base" not in terminal_table([plain])[0][0]  # no --baseline: no empty columns


def test_an_unstable_result_that_regressed_is_marked_in_every_table():
    result = example_result(Verdict.UNSTABLE, baseline_median=50.0, regression=True, run_p=0.001, baseline_runs=3)
    assert terminal_table([result])[1][0].split()[12] == "UNSTABLE+REGRESSION"
    html = summary_table([result])
    assert re.search(r'style="background:#7b1fa2">UNSTABLE\+REGRESSION<', html)
    assert "<th>vs baseline</th><th>p</th><th>run p</th><th>baseline runs</th>" in html
    assert '<td class="hil-num">-17.3%</td><td class="hil-num">0.004</td>' in html
    assert "UNSTABLE+REGRESSION" in stats_table(result)
    unmarked = example_result(Verdict.UNSTABLE, baseline_median=50.0, regression=False)
    assert terminal_table([unmarked])[1][0].split()[12] == "UNSTABLE"


def test_summary_table_counts_the_tests_that_ran_beside_the_metrics():
    html = summary_table([example_result(Verdict.PASS)], "3 tests ran: 1 passed, 1 failed, 1 error")
    assert '<p id="hil-test-counts">3 tests ran: 1 passed, 1 failed, 1 error</p><p>1 metrics: 1 PASS</p>' in html
    assert "3 tests ran" in summary_table([], "3 tests ran: 3 error")  # no metric at all: still counted


@pytest.mark.parametrize(
    ("page", "corrected"),
    [
        ('<p class="run-count">2 tests took 00:00:05.</p>', '<p class="run-count">3 tests took 00:00:05.</p>'),
        ('<p class="run-count">0 test took 5 ms.</p>', '<p class="run-count">3 tests took 5 ms.</p>'),
        ('<p class="run-count">1/4 test done.</p>', '<p class="run-count">3/4 tests done.</p>'),
    ],
)
def test_pytest_htmls_run_count_is_replaced(page, corrected):
    assert correct_run_count(page, 3) == corrected


def test_a_page_without_run_count_is_not_touched():
    assert correct_run_count("<p>no count here</p>", 3) is None
