"""The PNG plot of one result (its samples), and what the SVG trend shares with it (View, TrendPoint, labels).

matplotlib's object API on the Agg canvas: no pyplot, no global backend switch, no display needed, nothing left
open between plots. Small on purpose (6x3 in at 90 dpi, about 30 kB) so a report with 50 metrics stays a few MB
once base64-embedded. Plain module: no pytest.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterable
from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from hil.report.summary import VERDICT_COLORS, fmt_num
from hil.verdict.result import MetricResult, SampleStats, Verdict
from hil.verdict.spec import Band, Direction

FIGSIZE = (6.0, 3.0)
DPI = 90

_BAND_COLOR = "#c8e6c9"
_CI_COLOR = "#1e88e5"
_SAMPLE_COLOR = "#263238"
_WARMUP_COLOR = "#9e9e9e"
_CEILING_COLOR = "#b71c1c"
_BASELINE_COLOR = "#6d4c41"
_OUTLIER_STYLE = {"s": 90, "facecolors": "none", "edgecolors": "#d50000", "linewidths": 1.4, "zorder": 5}
_ABOVE_CEILING_STYLE = {"marker": "x", "s": 60, "color": _CEILING_COLOR, "linewidths": 1.6, "zorder": 6}


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


class View:
    """The y range that keeps the samples readable: reference lines (band edges, ceiling, baseline) far from the
    data would squash the samples into one pixel row, so they are left out and named "off scale" in the legend."""

    def __init__(self, core: Iterable[float]) -> None:
        values = list(core)
        low, high = min(values), max(values)
        span = high - low or max(abs(high) * 0.05, 1e-9)
        self.low, self.high, self.reach = low, high, 2 * span

    def within(self, value: float) -> bool:
        return self.low - self.reach <= value <= self.high + self.reach

    def include(self, value: float) -> None:
        self.low, self.high = min(self.low, value), max(self.high, value)

    def limits(self) -> tuple[float, float]:
        pad = (self.high - self.low) * 0.08 or max(abs(self.high) * 0.05, 1e-9)
        return self.low - pad, self.high + pad


def better(direction: Direction) -> str:
    """Which way is better, for an axis label: throughput up, latency down."""
    return "↑ better" if direction is Direction.HIGHER else "↓ better"


def _shade_band(ax: Axes, band: Band, limits: tuple[float, float], label: str) -> None:
    low = limits[0] if band.low is None else max(band.low, limits[0])
    high = limits[1] if band.high is None else min(band.high, limits[1])
    if low < high:
        ax.axhspan(low, high, color=_BAND_COLOR, alpha=0.6, lw=0, label=label, zorder=0)


def _scale(
    result: MetricResult, ceiling: float | None
) -> tuple[tuple[float, float], list[tuple[float, str, str, str]], list[str]]:
    """The y limits around the samples, the reference lines inside them, and what lies off scale."""
    view = View([*result.values, *(sample.value for sample in result.warmup)])
    off_scale: list[str] = []

    def fits(value: float, name: str) -> bool:
        """Within reach of the samples: the view takes it in; else it is named off scale."""
        if view.within(value):
            view.include(value)
            return True
        if name not in off_scale:
            off_scale.append(name)
        return False

    # With two or three samples the t-interval can be ten times the data's spread: clip it then.
    for edge in (result.stats.ci_low, result.stats.ci_high) if result.stats else ():
        fits(edge, "CI of mean")
    references: list[tuple[float, str, str, str]] = []  # value, label, colour, linestyle
    if ceiling is not None:
        label = f"ceiling {fmt_num(ceiling)}" + ("" if result.ceiling.enforced else " (reference)")
        references.append((ceiling, label, _CEILING_COLOR, "-."))
    if result.baseline is not None:
        median = result.baseline.baseline_median
        references.append((median, f"baseline median {fmt_num(median)}", _BASELINE_COLOR, ":"))
    for edge in (result.band.low, result.band.high) if result.band is not None else ():
        if edge is not None:
            fits(edge, f"band edge {fmt_num(edge)}")
    shown = [reference for reference in references if fits(reference[0], reference[1])]
    return view.limits(), shown, off_scale


def _draw_samples(
    ax: Axes, values: list[float], warmup: list[float], stats: SampleStats | None, ceiling: float | None
) -> None:
    """Warm-up hollow and grey, samples joined in order, outliers circled, values above an enforced ceiling."""
    counted_x = list(range(1, len(values) + 1))
    if warmup:
        warmup_x = list(range(1 - len(warmup), 1))  # ... -1, 0: before sample 1
        ax.scatter(warmup_x, warmup, facecolors="none", edgecolors=_WARMUP_COLOR, s=28, label="warm-up", zorder=3)
        ax.axvline(0.5, color=_WARMUP_COLOR, lw=0.8, ls=":", zorder=1)
    if values:
        ax.plot(counted_x, values, color=_SAMPLE_COLOR, lw=0.6, alpha=0.5, zorder=3)
        ax.scatter(counted_x, values, color=_SAMPLE_COLOR, s=16, label=f"samples (n={len(values)})", zorder=4)
    outliers = [i for i in (stats.outliers if stats else []) if 0 <= i < len(values)]
    # Values above an enforced ceiling are physically impossible: the reason for an ERROR verdict, so point at them.
    above = [i for i, value in enumerate(values) if value > ceiling] if ceiling is not None else []
    for marked, name, style in ((outliers, "outliers", _OUTLIER_STYLE), (above, "above ceiling", _ABOVE_CEILING_STYLE)):
        if marked:
            x = [counted_x[i] for i in marked]
            ax.scatter(x, [values[i] for i in marked], label=f"{name} ({len(marked)})", **style)


def result_plot(result: MetricResult) -> bytes | None:
    """Samples in order (warm-up hollow and grey), band, CI of the mean, median, ceiling, baseline,
    outliers circled in red. None when nothing was sampled (an ERROR before the first value)."""
    values = result.values
    warmup = [sample.value for sample in result.warmup]
    if not values and not warmup:
        return None
    stats = result.stats
    ceiling = result.ceiling_in_unit()
    limits, shown, off_scale = _scale(result, ceiling)

    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    ax = fig.subplots()
    if result.band is not None:
        _shade_band(ax, result.band, limits, f"band {result.band.describe()}")
    if stats is not None:
        ci_label = f"{stats.confidence:.0%} CI of mean"
        ax.axhspan(stats.ci_low, stats.ci_high, color=_CI_COLOR, alpha=0.18, lw=0, label=ci_label, zorder=1)
        ax.axhline(stats.median, color=_CI_COLOR, lw=1.5, label=f"median {fmt_num(stats.median)}", zorder=2)
    for value, label, color, style in shown:
        ax.axhline(value, color=color, lw=1.2, ls=style, label=_literal(label), zorder=2)

    _draw_samples(ax, values, warmup, stats, ceiling if ceiling is not None and result.ceiling.enforced else None)
    if off_scale:
        ax.plot([], [], " ", label=_literal("off scale: " + ", ".join(off_scale)))

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("sample", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.set_ylim(*limits)
    ax.set_ylabel(_literal(f"{result.unit}  ({better(result.direction)})"), fontsize=8)
    ax.grid(axis="y", lw=0.3, alpha=0.6)
    title = _literal(f"{result.board}  {result.key}  {result.verdict}")
    ax.set_title(title, fontsize=9, color=VERDICT_COLORS.get(result.verdict, "black"), loc="left")
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, frameon=False)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


@dataclass(frozen=True)
class TrendPoint:
    """One run's figure for one metric on one board."""

    label: str  # x tick: when the run started
    median: float
    ci_low: float
    ci_high: float
    band: Band | None  # None: informative
    verdict: Verdict
    build: str | None = None  # the build the run measured (hil.build), when it was given one


def _literal(text: str) -> str:
    """A name as matplotlib shows it verbatim: a $ would start mathtext (`$x^{$` in a build name stopped the
    whole trend page with a ParseSyntaxException)."""
    return text.replace("$", r"\$")


def short(point: TrendPoint, width: int = 24) -> str:
    """A point's build (else its time) as it fits beside the plot (the page around it gives the whole name)."""
    label = point.build or point.label
    return label if len(label) <= width else label[: width - 1] + "…"
