import io

import pytest
from matplotlib.image import imread

from hil.report.pages import render
from hil.report.plots import DPI, FIGSIZE, TrendPoint, data_uri, result_plot
from hil.report.svg import trend_svg
from hil.report.testing import example_result
from hil.verdict.changepoint import find_steps
from hil.verdict.result import Verdict
from hil.verdict.spec import Band, Direction

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _size(png):
    image = imread(io.BytesIO(png), format="png")
    return image.shape[1], image.shape[0]


def test_result_plot_is_a_small_png():
    png = result_plot(example_result(Verdict.MARGINAL, baseline_median=42.5))
    assert png.startswith(PNG_MAGIC)
    assert _size(png) == (round(FIGSIZE[0] * DPI), round(FIGSIZE[1] * DPI))
    assert len(png) < 80_000  # 50 metrics must stay a few MB of report
    assert data_uri(png).startswith("data:image/png;base64,iVBOR")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"values": [3100.0, 3150.0, 3120.0], "band": Band(3200.0, None), "ceiling": 3938.0},  # far ceiling
        {"values": [110.0, 110.0, 110.0], "warmup": (), "ceiling": None},  # no spread at all
        {"values": [41.0, 300.0], "ceiling": 53.0},  # above the ceiling, a CI ten times the data
        {"values": [0.001, 0.0012], "band": Band(None, 0.01), "ceiling": None},  # latency-like
    ],
)
def test_result_plot_copes_with_odd_shapes(kwargs):
    assert result_plot(example_result(**kwargs)).startswith(PNG_MAGIC)


def test_nothing_sampled_means_no_plot():
    assert result_plot(example_result(Verdict.ERROR, values=[], warmup=[])) is None


def test_the_trend_svg_places_one_or_many_points_inside_its_plot():
    point = TrendPoint("2025-11-01 12:00", 41.0, 40.0, 42.0, Band(38.0, 48.0), Verdict.PASS)
    one = trend_svg([point], [], "MB/s", Direction.HIGHER)
    assert len(one.points) == 1 and one.values == [(one.points[0][0], one.points[0][1] - 6, "41.00")]
    points = [
        TrendPoint(f"run {i}", 40.0 + i % 3, 39.0, 43.0, Band(38.0 + i % 2, None), list(Verdict)[i % 6])
        for i in range(40)
    ]
    many = trend_svg(points, [], "MB/s", Direction.HIGHER)
    x0, y0, width, height = many.plot
    assert len(many.points) == 40 and not many.values  # more than 30 runs: no median written by each point
    assert all(x0 <= x <= x0 + width and y0 <= y <= y0 + height for x, y, _, _ in many.points)
    assert many.y_label == "median MB/s (↑ better)"


def test_the_trend_svg_names_the_builds_and_the_step():
    medians = [40.1, 40.6, 39.8, 40.3, 30.2, 30.0, 30.4, 29.9]
    builds = ["rc0"] * 4 + ["rc1-" + "x" * 40] * 4  # a long name is shortened on the plot only
    points = [
        TrendPoint(f"2025-11-0{i + 1} 10:00", m, m - 0.3, m + 0.3, Band(35.0, None), Verdict.PASS, build)
        for i, (m, build) in enumerate(zip(medians, builds, strict=True))
    ]
    (step,) = find_steps(medians)
    svg = trend_svg(points, [step], "MB/s", Direction.HIGHER)
    short = "rc1-" + "x" * 19 + "…"
    assert {text for _, text in svg.x_ticks} == {"rc0", short}  # the x axis names the builds
    assert [label for _, label in svg.steps] == [f"{short} -25.1%"]  # the step: the build after it, its change


def test_a_dollar_in_a_name_is_text_not_mathtext():
    """`$x^{$` in a build or board name stopped the whole trend page (matplotlib's mathtext, issue 40): the trend
    is SVG text now, and a result's plot shows it as text."""
    medians = [40.1, 40.6, 39.8, 40.3, 30.2, 30.0, 30.4, 29.9]
    builds = ["$x^{$ rc0"] * 4 + ["$\\frac{$"] * 4
    points = [
        TrendPoint(f"2025-11-0{i + 1} 10:00", m, m - 0.3, m + 0.3, Band(35.0, None), Verdict.PASS, build)
        for i, (m, build) in enumerate(zip(medians, builds, strict=True))
    ]
    (step,) = find_steps(medians)
    assert "$x^{$ rc0" in render("trend_svg.html", svg=trend_svg(points, [step], "MB/s", Direction.HIGHER))
    assert imread(io.BytesIO(result_plot(example_result(board="$\\sqrt{$")))).shape[0] > 0
