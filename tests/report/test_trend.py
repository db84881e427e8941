import re

import pytest

from hil.db.engine import open_db
from hil.db.read import history as read_history
from hil.db.write import write_run
from hil.records.store import RunInfo
from hil.report.testing import example_result
from hil.report.trend import main, render, series
from hil.verdict.result import Verdict


def _run(engine, started, results, build=None, run_id=None):
    run = RunInfo.start("pytest", build={"name": build} if build else None)
    run.started = started
    run.id = run_id or started.replace("-", "").replace(":", "")[:15] + "Z-" + run.id[-6:]
    write_run(engine, run, results)


@pytest.fixture
def url(tmp_path):
    return f"sqlite:///{tmp_path / 'hil.db'}"


@pytest.fixture
def engine(url):
    engine = open_db(url)
    _run(engine, "2025-11-02T10:00:00+00:00", [example_result(Verdict.FAIL, values=[30.0, 31.0])])
    _run(engine, "2025-11-01T10:00:00+00:00", [example_result(Verdict.PASS), example_result(board="b2")])
    _run(engine, "2025-11-03T10:00:00+00:00", [example_result(Verdict.ERROR, values=[])])
    return engine


def test_history_in_time_order_per_board_and_key(engine):
    runs = read_history(engine)
    assert [r.run.started[:10] for r in runs] == ["2025-11-01", "2025-11-02", "2025-11-03"]
    points = series(runs)
    assert sorted(points) == ["b2", "vboard-hs"]
    line = points["vboard-hs"]["usb.msc.read[bs=1M]"]
    assert [p.verdict for p in line] == [Verdict.PASS, Verdict.FAIL]  # the ERROR run has no median
    assert line[1].median == 30.5
    assert [r.run.started[:10] for r in read_history(engine, limit=1)] == ["2025-11-03"]  # a session's own page


def test_the_history_is_not_capped(tmp_path):
    """The files kept the newest 60 runs; the database keeps every run and the trend draws them all."""
    engine = open_db(f"sqlite:///{tmp_path / 'hil.db'}")
    for index in range(75):
        _run(engine, f"2025-11-01T{index // 60:02d}:{index % 60:02d}:00+00:00", [example_result()])
    points = series(read_history(engine))
    assert len(points["vboard-hs"]["usb.msc.read[bs=1M]"]) == 75


def test_render_is_self_contained(engine):
    page = render(read_history(engine))
    assert page.count("<h2>") == 2
    assert len(re.findall(r'<svg class="hil-trend" xmlns="http://www.w3.org/2000/svg"', page)) == 2  # inline
    assert 'src="' not in page and "<script" not in page and 'id="hil-trend"' not in page  # no id twice


def test_cli_writes_the_page(engine, url, tmp_path):
    out = tmp_path / "out" / "trend.html"
    assert main(["--hil-db", url, "-o", str(out)]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert "<p>3 run(s): " in out.read_text()
    assert main(["--hil-db", url, "-o", str(out), "--newest", "2"]) == 0  # a window: the newest runs only
    assert re.search(r"<p>2 run\(s\): 20251102T100000Z-\w+ … 20251103T100000Z-\w+;", out.read_text())


def test_cli_names_a_database_it_cannot_open(tmp_path, capsys):
    bad = tmp_path / "hil.db"
    bad.write_bytes(b"not a database" * 100)
    assert main(["--hil-db", f"sqlite:///{bad}", "-o", str(tmp_path / "t.html")]) == 4
    assert f"SQLite file {bad}: cannot be opened: file is not a database" in capsys.readouterr().err


def test_the_overview_and_the_plot_mark_the_build_a_metric_stepped_at(tmp_path):
    engine = open_db(f"sqlite:///{tmp_path / 'hil.db'}")
    rng_values = [[40.1, 40.3, 39.9], [40.6, 40.2, 40.4], [39.8, 40.0, 40.2], [30.2, 30.0, 29.8], [30.4, 30.1, 30.3]]
    for day, values in enumerate(rng_values, start=1):
        build = "rc1" if day > 3 else "rc0"
        _run(engine, f"2025-11-0{day}T10:00:00+00:00", [example_result(values=values)], build, f"r{day}")
    page = render(read_history(engine))
    overview = page[page.index('<table class="hil-summary">') : page.index("<h2>")]
    stepped = "stepped at 2025-11-04 10:00 (build rc1): 40.10 -&gt; 30.15 (-24.8%, confidence 99.98%, p 0.00017)"
    assert stepped in overview
    assert page.count("stepped at 2025-11-04 10:00 (build rc1)") == 2  # the overview, and above the plot


def test_a_stored_nan_median_is_no_point_and_no_crash(url):
    """An older hil stored a spooled run whose median was NaN as JSON null (import and push refuse such a file
    now, hil.db.write.check_figures): the trend page leaves that run's point out and draws the others."""
    from sqlalchemy import update

    from hil.db.schema import Result

    engine = open_db(url)
    _run(engine, "2025-11-01T10:00:00+00:00", [example_result(Verdict.PASS)])
    _run(engine, "2025-11-02T10:00:00+00:00", [example_result(Verdict.PASS)], run_id="20251102T100000Z-nanrun")
    nan_run = Result.run_id == "20251102T100000Z-nanrun"
    with engine.begin() as connection:
        stats = connection.execute(Result.__table__.select().where(nan_run)).one().stats
        stats.update(median=None, mean=None, ci_low=None, ci_high=None)
        connection.execute(update(Result).where(nan_run).values(stats=stats, median=None))
    runs = read_history(engine)
    assert [p.label for p in series(runs)["vboard-hs"]["usb.msc.read[bs=1M]"]] == ["2025-11-01 10:00"]
    assert render(runs).count("<h2>") == 1
