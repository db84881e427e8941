import math
import re

import pytest

from hil.report.html import result_block, stats_table, summary_table
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
        "p=0.004 (alpha 0.01), min effect 5.0%: REGRESSION",
        "480M",
        "kernel=6.1.0-27-amd64",
        "warm-up",
    ):
        assert text in html, text


def test_result_block_embeds_plot_and_raw_output():
    block = result_block(example_result(Verdict.ERROR, error_output="<garbage>"), "data:image/png;base64,AAA")
    assert '<img src="data:image/png;base64,AAA"' in block
    assert '<pre class="hil-raw">&lt;garbage&gt;</pre>' in block
