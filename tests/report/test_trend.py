import re

import pytest

from hil.report.store import ResultsFileError, ResultStore, RunInfo
from hil.report.testing import example_result
from hil.report.trend import load_history, main, render, series
from hil.verdict.result import Verdict


def _run(history, started, results):
    run = RunInfo.start("pytest")
    run.started = started
    run.id = started.replace("-", "").replace(":", "")[:15] + "Z-" + run.id[-6:]
    store = ResultStore(history.parent / "results.json", run, history_dir=history)
    for result in results:
        store.add(result)
    store.finish()


@pytest.fixture
def history(tmp_path):
    history = tmp_path / "history"
    _run(history, "2025-11-02T10:00:00+00:00", [example_result(Verdict.FAIL, values=[30.0, 31.0])])
    _run(history, "2025-11-01T10:00:00+00:00", [example_result(Verdict.PASS), example_result(board="b2")])
    _run(history, "2025-11-03T10:00:00+00:00", [example_result(Verdict.ERROR, values=[])])
    return history


def test_history_in_time_order_per_board_and_key(history):
    runs = load_history(history)
    assert [r.run.started[:10] for r in runs] == ["2025-11-01", "2025-11-02", "2025-11-03"]
    points = series(runs)
    assert sorted(points) == ["b2", "vboard-hs"]
    line = points["vboard-hs"]["usb.msc.read[bs=1M]"]
    assert [p.verdict for p in line] == [Verdict.PASS, Verdict.FAIL]  # the ERROR run has no median
    assert line[1].median == 30.5
    assert load_history(history, max_runs=1)[0].run.started.startswith("2025-11-03")


def test_render_is_self_contained(history):
    page = render(load_history(history))
    assert page.count("<h2>") == 2
    assert len(re.findall(r'<img src="data:image/png;base64,', page)) == 2
    assert 'src="http' not in page and "<script" not in page


def test_cli_writes_the_page(history, tmp_path, capsys):
    out = tmp_path / "out" / "trend.html"
    assert main([str(history), "-o", str(out)]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_cli_skips_a_corrupt_history_file_and_names_it(history, tmp_path, capsys):
    bad = history / "20251104T000000Z-000000.json"
    bad.write_text("{")
    good = len(load_history(history))
    assert main([str(history), "-o", str(tmp_path / "t.html")]) == 0
    assert f"warning: skipped {bad}: not valid JSON" in capsys.readouterr().err
    skipped: list[str] = []
    assert len(load_history(history, skipped=skipped)) == good
    assert skipped and skipped[0].startswith(str(bad))


def test_missing_history_directory(tmp_path):
    with pytest.raises(ResultsFileError, match="no such history directory"):
        load_history(tmp_path / "none")


def test_the_overview_and_the_plot_mark_the_build_a_metric_stepped_at(tmp_path):
    history = tmp_path / "history"
    rng_values = [[40.1, 40.3, 39.9], [40.6, 40.2, 40.4], [39.8, 40.0, 40.2], [30.2, 30.0, 29.8], [30.4, 30.1, 30.3]]
    for day, values in enumerate(rng_values, start=1):
        run = RunInfo.start("pytest", build={"name": "rc1" if day > 3 else "rc0"})
        run.started = f"2025-11-0{day}T10:00:00+00:00"
        run.id = f"2025110{day}T100000Z-00000{day}"
        store = ResultStore(history.parent / "results.json", run, history_dir=history)
        store.add(example_result(values=values))
        store.finish()
    page = render(load_history(history))
    overview = page[page.index("<table class='hil-summary'>") : page.index("<h2>")]
    stepped = "stepped at 2025-11-04 10:00 (build rc1): 40.10 -&gt; 30.15 (-24.8%, confidence 99.98%, p 0.00017)"
    assert stepped in overview
    assert page.count("stepped at 2025-11-04 10:00 (build rc1)") == 2  # the overview, and above the plot
