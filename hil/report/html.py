"""HTML fragments: a result's statistics table with its plot, and the run's summary table.

pytest-html 4 renders its rows in JavaScript from strings: these fragments are plain HTML, rendered from the
templates (hil.report.pages), each carrying templates/style.css. Plain module: no pytest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from markupsafe import Markup

from hil.report.pages import ENVIRONMENT, render
from hil.report.summary import (
    DASH,
    band_text,
    ci_half_width,
    fmt_num,
    fmt_p,
    fmt_pct,
    summary_row,
    verdict_counts,
    verdict_text,
    worst_first,
)
from hil.verdict.result import MetricResult

MAX_RAW_CHARS = 20_000  # error output is shown verbatim, but a runaway log must not bloat the page


@dataclass(frozen=True)
class StatsRows:
    """The figures behind a verdict, as the statistics table shows them: the verdict text, then label and text."""

    verdict: str
    figures: list[tuple[str, str]]


def stats_rows(result: MetricResult) -> StatsRows:
    stats = result.stats
    unit = result.unit
    rows = [
        ("band", band_text(result, with_unit=True) + (f" (out {result.side})" if result.side else "")),
        ("better", f"{result.direction} ({'more' if result.direction == 'higher' else 'less'} is better)"),
        ("stop reason", str(result.stop_reason)),
    ]
    if stats is not None:
        outliers = ", ".join(
            f"#{i + 1}={fmt_num(result.values[i])}" for i in stats.outliers if 0 <= i < len(result.values)
        )
        ci = f"[{fmt_num(stats.ci_low)}, {fmt_num(stats.ci_high)}] (± {fmt_num(ci_half_width(stats))})"
        rows += [
            ("n", str(stats.n)),
            ("median", f"{fmt_num(stats.median)} {unit}"),
            ("mean", f"{fmt_num(stats.mean)} {unit}"),
            ("std", f"{fmt_num(stats.std)} {unit}"),
            ("CV", f"{fmt_pct(stats.cv)} (max {fmt_pct(result.max_cv)})"),
            (f"{stats.confidence:.0%} CI of mean", ci),
            ("min / max", f"{fmt_num(stats.minimum)} / {fmt_num(stats.maximum)}"),
            ("outliers (Tukey 1.5 IQR)", outliers or "none"),
        ]
    else:
        rows.append(("samples", str(len(result.samples))))
    if result.warmup:
        rows.append(("warm-up (not counted)", ", ".join(fmt_num(s.value) for s in result.warmup)))
    if (ceiling := result.ceiling) is not None:
        of = f"of ceiling {fmt_num(ceiling.value)} {ceiling.unit} ({ceiling.basis})"
        rows.append(("efficiency", f"{fmt_pct(result.efficiency)} {of}"))
    if (base := result.baseline) is not None:
        runs = f"{base.baseline_runs} run{'s' if base.baseline_runs != 1 else ''}"
        run_p = "run-to-run spread unknown" if base.run_p is None else f"run p={fmt_p(base.run_p)}"
        text = (
            f"{fmt_pct(base.change, signed=True)} vs median {fmt_num(base.baseline_median)} "
            f"(n={base.baseline_n}, {runs}, last {base.baseline_run}); "
            f"p={fmt_p(base.p_value)} (alpha {base.alpha:g}), {run_p}, min effect {fmt_pct(base.min_effect)}: "
            f"{'REGRESSION' if base.regression else 'no regression'}"
        )
        rows.append(("baseline", text + (f" ({base.reason})" if base.reason else "")))
    facts = result.facts
    if facts.link_seen:
        rows.append(("link", facts.link_seen))
    if diagnosis := facts.notes.get("diagnosis"):  # hil.diagnose: where a missed figure lost its rate
        rows.append(("diagnosis", Markup("<br/>").join(str(line) for line in diagnosis)))  # each line escaped
    shown = {"diagnosis", "link_speed" if facts.link_speed else "link"}
    if other := {k: v for k, v in facts.to_dict().items() if k not in shown}:
        rows.append(("facts", ", ".join(f"{k}={v}" for k, v in sorted(other.items()))))
    return StatsRows(verdict_text(result), rows)


def stats_table(result: MetricResult) -> str:
    """Every figure behind the verdict, as a two-column table."""
    return ENVIRONMENT.get_template("macros.html").module.stats_table(result, stats_rows(result))


def result_block(result: MetricResult, plot_uri: str | None, plot_error: str = "") -> str:
    """One metric for the HTML extras: its reason, the statistics and the plot side by side."""
    raw = result.error_output
    if len(raw) > MAX_RAW_CHARS:
        raw = raw[:MAX_RAW_CHARS] + f"\n[... {len(raw) - MAX_RAW_CHARS} more characters in results.json]"
    return render(
        "result.html",
        result=result,
        rows=stats_rows(result),
        plot_uri=plot_uri,
        plot_error=plot_error,
        raw=raw,
    )


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
    return render(
        "summary.html",
        rows=rows,
        headers=headers,
        with_baseline=with_baseline,
        tests=tests,
        counts=verdict_counts(results),
    )


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
