"""How a result reads in one line: number formatting, verdict colours and the summary rows.

Shared by the terminal table, the HTML summary, the JUnit properties and the trend page, so a
median reads the same everywhere. Plain module: no pytest.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from hil.verdict.result import MetricResult, SampleStats, Verdict

DASH = "–"

# Each verdict's colour on a page and its markup in the terminal.
_STYLES: dict[Verdict, tuple[str, dict[str, bool]]] = {
    Verdict.PASS: ("#2e7d32", {"green": True}),
    Verdict.MARGINAL: ("#e08000", {"yellow": True}),
    Verdict.FAIL: ("#c62828", {"red": True}),
    Verdict.UNSTABLE: ("#7b1fa2", {"red": True}),
    Verdict.REGRESSION: ("#ad1457", {"red": True}),
    Verdict.ERROR: ("#37474f", {"red": True, "bold": True}),
    Verdict.INFO: ("#546e7a", {}),
}
VERDICT_COLORS = {verdict: colour for verdict, (colour, _) in _STYLES.items()}
TERMINAL_MARKUP = {verdict: markup for verdict, (_, markup) in _STYLES.items()}


def fmt_num(value: float | None) -> str:
    """A measured number with the digits that matter: 3219, 110.2, 53.47, 0.0123."""
    if value is None or not math.isfinite(value):
        return DASH
    magnitude = abs(value)
    if magnitude >= 1000:
        return f"{value:.0f}"
    if magnitude >= 100:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def fmt_pct(fraction: float | None, *, signed: bool = False) -> str:
    if fraction is None or not math.isfinite(fraction):
        return DASH
    return f"{fraction * 100:+.1f}%" if signed else f"{fraction * 100:.1f}%"


def fmt_p(p_value: float | None) -> str:
    if p_value is None or not math.isfinite(p_value):
        return DASH
    return f"{p_value:.2g}" if p_value >= 0.001 else "<0.001"


def ci_half_width(stats: SampleStats) -> float:
    return (stats.ci_high - stats.ci_low) / 2


def band_text(result: MetricResult, *, with_unit: bool = False) -> str:
    """The band as it reads in a table: '>= 38 MB/s', or 'informative' for a metric recorded ungated."""
    if result.band is None:
        return "informative"
    return result.band.describe(result.unit if with_unit else "")


def regressed(result: MetricResult) -> bool:
    """The baseline comparison found a regression, whatever the verdict (UNSTABLE and FAIL keep theirs)."""
    return result.baseline is not None and result.baseline.regression


def verdict_text(result: MetricResult) -> str:
    """The verdict as the tables show it: 'UNSTABLE+REGRESSION' when another verdict also regressed."""
    if regressed(result) and result.verdict is not Verdict.REGRESSION:
        return f"{result.verdict}+{Verdict.REGRESSION}"
    return str(result.verdict)


def ordered(results: Iterable[MetricResult]) -> list[MetricResult]:
    """Grouped by board, then metric key; results of one key keep their run order."""
    return sorted(results, key=lambda result: (result.board, result.key))


def worst_first(results: Iterable[MetricResult]) -> list[MetricResult]:
    """What a release manager reads first: errors, failures, regressions (also behind another verdict), the
    unstable and marginal ones, then the rest; each group in board and metric order."""

    def badness(result: MetricResult) -> int:
        return max(result.verdict.severity, Verdict.REGRESSION.severity if regressed(result) else 0)

    return sorted(ordered(results), key=badness, reverse=True)  # stable: the board order stays within a group


@dataclass(frozen=True)
class SummaryRow:
    board: str
    key: str
    median: str
    ci: str  # half width of the confidence interval of the mean, "±x"
    unit: str
    band: str
    cv: str
    n: str
    verdict: Verdict
    verdict_text: str  # with "+REGRESSION" when the result also regressed
    stop_reason: str
    test_id: str
    # Against the baseline (DASH without one): change of the median, the within-run Mann-Whitney p,
    # the between-runs p (DASH when the run-to-run spread is unknown), the runs the baseline holds.
    change: str = DASH
    p: str = DASH
    run_p: str = DASH
    baseline_runs: str = DASH

    @property
    def median_ci(self) -> str:
        return self.median if self.ci == DASH else f"{self.median} ± {self.ci}"


def summary_row(result: MetricResult) -> SummaryRow:
    stats = result.stats
    base = result.baseline
    return SummaryRow(
        board=result.board,
        key=result.key,
        median=fmt_num(stats.median) if stats else DASH,
        ci=fmt_num(ci_half_width(stats)) if stats else DASH,
        unit=result.unit,
        band=band_text(result),
        cv=fmt_pct(stats.cv) if stats else DASH,
        n=str(stats.n) if stats else str(len(result.samples)),
        verdict=result.verdict,
        verdict_text=verdict_text(result),
        stop_reason=str(result.stop_reason),
        test_id=result.test_id,
        change=fmt_pct(base.change, signed=True) if base else DASH,
        p=fmt_p(base.p_value) if base else DASH,
        run_p=fmt_p(base.run_p) if base else DASH,
        baseline_runs=str(base.baseline_runs) if base else DASH,
    )


TERMINAL_COLUMNS = ("board", "metric", "median", "unit", "band", "CV", "n", "verdict", "stop")
# Shown after "n" when any result was compared with a baseline.
BASELINE_COLUMNS = ("vs base", "p", "run p", "runs")
_RIGHT_ALIGNED = {"median", "CV", "n", *BASELINE_COLUMNS}


def _terminal_cells(row: SummaryRow, with_baseline: bool) -> tuple[str, ...]:
    first = (row.board, row.key, row.median, row.unit, row.band, row.cv, row.n)
    baseline = (row.change, row.p, row.run_p, row.baseline_runs) if with_baseline else ()
    return (*first, *baseline, row.verdict_text, row.stop_reason)


def terminal_table(results: Iterable[MetricResult]) -> list[tuple[str, Verdict | None]]:
    """Header and one line per result, each with the verdict that colours it (None for the header)."""
    rows = [summary_row(result) for result in ordered(results)]
    with_baseline = any(row.change != DASH for row in rows)
    titles = TERMINAL_COLUMNS[:7] + (BASELINE_COLUMNS if with_baseline else ()) + TERMINAL_COLUMNS[7:]
    cells = [_terminal_cells(row, with_baseline) for row in rows]
    widths = [max([len(title), *(len(line[i]) for line in cells)]) for i, title in enumerate(titles)]

    def join(values: tuple[str, ...]) -> str:
        parts = [
            value.rjust(width) if title in _RIGHT_ALIGNED else value.ljust(width)
            for value, width, title in zip(values, widths, titles, strict=True)
        ]
        return "  ".join(parts).rstrip()

    lines: list[tuple[str, Verdict | None]] = [(join(titles), None)]
    lines += [(join(line), row.verdict) for line, row in zip(cells, rows, strict=True)]
    return lines


def verdict_counts(results: Iterable[MetricResult]) -> str:
    """'3 PASS, 1 UNSTABLE, 1 UNSTABLE+REGRESSION, 1 ERROR' in verdict order."""
    counts = Counter((list(Verdict).index(result.verdict), verdict_text(result)) for result in results)
    return ", ".join(f"{counts[key]} {key[1]}" for key in sorted(counts))
