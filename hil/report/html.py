"""HTML fragments: a result's statistics table with its plot, and the run's summary table.

pytest-html 4 renders its rows in JavaScript from strings; these fragments are plain HTML with
`hil-` classes styled by STYLE, which the summary carries into the page once.
Everything user-supplied is escaped. Plain module: no pytest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape

from hil.report.summary import (
    DASH,
    VERDICT_COLORS,
    band_text,
    ci_half_width,
    fmt_num,
    fmt_p,
    fmt_pct,
    key_of,
    link_fact,
    summary_row,
    verdict_counts,
    verdict_text,
    worst_first,
)
from hil.verdict.result import MetricResult, Verdict

STYLE = """
<style>
.hil-summary, .hil-stats { border-collapse: collapse; margin: 6px 0 12px 0; color: #222; font-size: 12px; }
.hil-summary th, .hil-summary td, .hil-stats th, .hil-stats td { border: 1px solid #ddd; padding: 3px 8px; }
.hil-summary th, .hil-stats th { background: #f3f3f3; text-align: left; font-weight: bold; }
.hil-stats th { font-weight: normal; color: #555; }
.hil-num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.hil-verdict { font-weight: bold; color: #fff; text-align: center; white-space: nowrap; padding: 1px 6px; }
.hil-result { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; margin: 6px 0; }
.hil-result img { max-width: 100%; border: 1px solid #e6e6e6; }
.hil-reason { margin: 4px 0; color: #222; font-size: 13px; }
.hil-raw { background: #f6f6f6; color: #222; padding: 6px; max-height: 300px; overflow: auto;
           white-space: pre-wrap; font-family: monospace; font-size: 11px; }
</style>
"""

MAX_RAW_CHARS = 20_000  # error output is shown verbatim, but a runaway log must not bloat the page


def verdict_cell(verdict: Verdict, tag: str = "td", text: str | None = None) -> str:
    color = VERDICT_COLORS.get(verdict, "#000")
    shown = str(verdict) if text is None else text
    return f'<{tag} class="hil-verdict" style="background:{color}">{escape(shown)}</{tag}>'


def _row(label: str, value: str, *, raw_html: bool = False) -> str:
    return f"<tr><th>{escape(label)}</th><td>{value if raw_html else escape(value)}</td></tr>"


def stats_table(result: MetricResult) -> str:
    """Every figure behind the verdict, as a two-column table."""
    stats = result.stats
    unit = result.unit
    rows = [
        _row("verdict", verdict_cell(result.verdict, "span", verdict_text(result)), raw_html=True),
        _row("band", band_text(result, with_unit=True) + (f" (out {result.side})" if result.side else "")),
        _row("better", f"{result.direction} ({'more' if result.direction == 'higher' else 'less'} is better)"),
        _row("stop reason", str(result.stop_reason)),
    ]
    if stats is not None:
        outliers = ", ".join(
            f"#{i + 1}={fmt_num(result.values[i])}" for i in stats.outliers if 0 <= i < len(result.values)
        )
        rows += [
            _row("n", str(stats.n)),
            _row("median", f"{fmt_num(stats.median)} {unit}"),
            _row("mean", f"{fmt_num(stats.mean)} {unit}"),
            _row("std", f"{fmt_num(stats.std)} {unit}"),
            _row("CV", f"{fmt_pct(stats.cv)} (max {fmt_pct(result.max_cv)})"),
            _row(
                f"{stats.confidence:.0%} CI of mean",
                f"[{fmt_num(stats.ci_low)}, {fmt_num(stats.ci_high)}] (± {fmt_num(ci_half_width(stats))})",
            ),
            _row("min / max", f"{fmt_num(stats.minimum)} / {fmt_num(stats.maximum)}"),
            _row("outliers (Tukey 1.5 IQR)", outliers or "none"),
        ]
    else:
        rows.append(_row("samples", str(len(result.samples))))
    if result.warmup:
        rows.append(_row("warm-up (not counted)", ", ".join(fmt_num(s.value) for s in result.warmup)))
    if result.ceiling is not None:
        efficiency = fmt_pct(result.efficiency) if result.efficiency is not None else DASH
        rows.append(
            _row(
                "efficiency",
                f"{efficiency} of ceiling {fmt_num(result.ceiling.value)} "
                f"{result.ceiling.unit} ({result.ceiling.basis})",
            )
        )
    if result.baseline is not None:
        base = result.baseline
        runs = f"{base.baseline_runs} run{'s' if base.baseline_runs != 1 else ''}"
        run_p = "run-to-run spread unknown" if base.run_p is None else f"run p={fmt_p(base.run_p)}"
        text = (
            f"{fmt_pct(base.change, signed=True)} vs median {fmt_num(base.baseline_median)} "
            f"(n={base.baseline_n}, {runs}, last {base.baseline_run}); "
            f"p={fmt_p(base.p_value)} (alpha {base.alpha:g}), {run_p}, min effect {fmt_pct(base.min_effect)}: "
            f"{'REGRESSION' if base.regression else 'no regression'}"
        )
        rows.append(_row("baseline", text + (f" ({base.reason})" if base.reason else "")))
    link = link_fact(result.facts)
    if link is not None:
        rows.append(_row("link", link[1]))
    diagnosis = result.facts.get("diagnosis")  # hil.diagnose: where a missed figure lost its rate
    if diagnosis:
        rows.append(_row("diagnosis", "<br/>".join(escape(str(line)) for line in diagnosis), raw_html=True))
    shown = {"diagnosis", link[0] if link else ""}
    other = {k: v for k, v in result.facts.items() if k not in shown}
    if other:
        rows.append(_row("facts", ", ".join(f"{k}={v}" for k, v in sorted(other.items()))))
    return f'<table class="hil-stats">{"".join(rows)}</table>'


def result_block(result: MetricResult, plot_uri: str | None) -> str:
    """One metric for the HTML extras: its reason, the statistics and the plot side by side."""
    title = f"{escape(result.board)} · {escape(key_of(result))}"
    parts = [
        STYLE,  # the rows are rendered apart from the summary; repeating the small style block is harmless
        f'<div class="hil-reason"><b>{title}</b>: {escape(result.reason)}</div>',
        '<div class="hil-result">',
        stats_table(result),
    ]
    if plot_uri is not None:
        parts.append(f'<img src="{plot_uri}" alt="samples of {escape(key_of(result))}"/>')
    parts.append("</div>")
    if result.error_output:
        raw = result.error_output
        cut = f"\n[... {len(raw) - MAX_RAW_CHARS} more characters in results.json]" if len(raw) > MAX_RAW_CHARS else ""
        parts.append(f'<pre class="hil-raw">{escape(raw[:MAX_RAW_CHARS])}{escape(cut)}</pre>')
    return "".join(parts)


SUMMARY_HEADERS = ("board", "metric", "median ± CI", "unit", "band", "CV", "verdict", "stop reason")
# After CV, when any result was compared with a baseline.
BASELINE_HEADERS = ("vs baseline", "p", "run p", "baseline runs")


def summary_table(results: Iterable[MetricResult], tests: str = "") -> str:
    """The run at a glance, for the top of the page; `tests` is the line counting the tests that ran."""
    results = worst_first(results)
    if not results and not tests:
        return ""
    rows = [summary_row(result) for result in results]
    with_baseline = any(row.change != DASH for row in rows)
    headers = SUMMARY_HEADERS[:6] + (BASELINE_HEADERS if with_baseline else ()) + SUMMARY_HEADERS[6:]
    header = "".join(f"<th>{escape(title)}</th>" for title in headers)
    body = []
    for row in rows:
        baseline = (
            "".join(f'<td class="hil-num">{escape(v)}</td>' for v in (row.change, row.p, row.run_p, row.baseline_runs))
            if with_baseline
            else ""
        )
        body.append(
            "<tr>"
            f"<td>{escape(row.board)}</td>"
            f'<td title="{escape(row.test_id)}">{escape(row.key)}</td>'
            f'<td class="hil-num">{escape(row.median_ci)}</td>'
            f"<td>{escape(row.unit)}</td>"
            f"<td>{escape(row.band)}</td>"
            f'<td class="hil-num">{escape(row.cv)}</td>'
            f"{baseline}"
            f"{verdict_cell(row.verdict, text=row.verdict_text)}"
            f"<td>{escape(row.stop_reason)}</td>"
            "</tr>"
        )
    counts = [f'<p id="hil-test-counts">{escape(tests)}</p>'] if tests else []
    if results:
        counts.append(f"<p>{len(results)} metrics: {escape(verdict_counts(results))}</p>")
    table = (
        f'<table class="hil-summary" id="hil-summary"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
        if results
        else ""
    )
    return f"{STYLE}<h2>Metrics</h2>{''.join(counts)}{table}"


# pytest-html 4.2 renders "<N> tests took <duration>." (or "<N>/<M> tests done." while running) from its
# passed and failed counts only: a test that ended in ERROR is not among the N.
_RUN_COUNT = re.compile(r'(<p class="run-count">)(\d+)(/\d+)? tests?\b')


def correct_run_count(page: str, ran: int) -> str | None:
    """The page with pytest-html's run count replaced by `ran` (every test that ran, ERROR included);
    None when the page has no run count in the form above (another pytest-html)."""
    match = _RUN_COUNT.search(page)
    if match is None:
        return None
    text = f"{match.group(1)}{ran}{match.group(3) or ''} {'test' if ran == 1 else 'tests'}"
    return page[: match.start()] + text + page[match.end() :]
