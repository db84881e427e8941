"""A metric's history as inline SVG, drawn by the browser: the dashboard's history page and the trend page.

matplotlib took most of a second for a 200-run plot on a loaded 2-core machine (a trend page of 720 metrics took
two minutes): here Python only places the marks, and templates/trend_svg.html draws them, its text autoescaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from matplotlib.ticker import MaxNLocator

from hil.report.plots import TrendPoint, View, better, short
from hil.report.summary import VERDICT_COLORS, fmt_num, fmt_pct
from hil.verdict.changepoint import Step
from hil.verdict.spec import Direction

WIDTH, HEIGHT = 860, 330
LABELLED_POINTS = 30  # up to this many runs, each point has its median written beside it
LEFT, RIGHT, TOP, BOTTOM = 64, 120, 16, 96  # the legend sits right, the slanted build names below


@dataclass
class SvgPlot:
    width: int = WIDTH
    height: int = HEIGHT
    plot: tuple[float, float, float, float] = (LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM)
    y_label: str = ""
    bands: list[tuple[float, float, float, float]] = field(default_factory=list)  # x, y, w, h
    ci: list[tuple[float, float, float]] = field(default_factory=list)  # x, y top, y bottom
    line: str = ""  # polyline points
    points: list[tuple[float, float, str, str]] = field(default_factory=list)  # x, y, colour, tooltip
    steps: list[tuple[float, str]] = field(default_factory=list)  # x, label
    x_ticks: list[tuple[float, str]] = field(default_factory=list)
    y_ticks: list[tuple[float, str]] = field(default_factory=list)
    verdicts: list[tuple[str, str]] = field(default_factory=list)  # legend: verdict, colour
    values: list[tuple[float, float, str]] = field(default_factory=list)  # x, y, the median written by its point


def trend_svg(points: Sequence[TrendPoint], steps: Sequence[Step], unit: str, direction: Direction) -> SvgPlot:
    svg = SvgPlot(y_label=f"median {unit} ({better(direction)})")
    x0, y0, width, height = svg.plot
    view = View([p.median for p in points])
    for point in points:  # as the trend page: CI bars and band edges far off the medians are clipped
        band = (point.band.low, point.band.high) if point.band is not None else ()
        for edge in (point.ci_low, point.ci_high, *band):
            if edge is not None and view.within(edge):
                view.include(edge)
    low, high = view.limits()
    slot = width / len(points)

    def x(index: float) -> float:
        return round(x0 + (index + 0.5) * slot, 1)

    def y(value: float) -> float:
        clipped = min(max(value, low), high)
        return round(y0 + height * (high - clipped) / (high - low), 1)

    for i, point in enumerate(points):
        if point.band is not None:
            top = y(high if point.band.high is None else point.band.high)
            bottom = y(low if point.band.low is None else point.band.low)
            svg.bands.append((round(x0 + i * slot, 1), top, round(slot, 1), round(bottom - top, 1)))
        svg.ci.append((x(i), y(point.ci_high), y(point.ci_low)))
        tooltip = f"{point.label} {point.build or ''}: {fmt_num(point.median)} {unit} {point.verdict}"
        svg.points.append((x(i), y(point.median), VERDICT_COLORS[point.verdict], tooltip))
    if len(points) <= LABELLED_POINTS:
        svg.values = [(px, py - 6, fmt_num(p.median)) for (px, py, _, _), p in zip(svg.points, points, strict=True)]
    svg.line = " ".join(f"{px},{py}" for px, py, _, _ in svg.points)
    svg.steps = [(x(s.index - 0.5), f"{short(points[s.index])} {fmt_pct(s.change, signed=True)}") for s in steps]
    every = max(1, len(points) // 12)
    svg.x_ticks = [(x(i), short(points[i])) for i in range(0, len(points), every)]
    svg.y_ticks = [(y(v), fmt_num(v)) for v in MaxNLocator(6).tick_values(low, high) if low <= v <= high]
    shown = {point.verdict for point in points}
    svg.verdicts = [(str(v), VERDICT_COLORS[v]) for v in VERDICT_COLORS if v in shown]
    return svg
