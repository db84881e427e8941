import json

import pytest

from hil.report.baselines import BaselineFileError, BaselineStore
from hil.report.testing import example_result
from hil.verdict.result import Verdict


def _result(bs, values=(40.0, 41.0, 42.0), verdict=Verdict.PASS, **kw):
    return example_result(verdict, params={"bs": bs}, values=values, **kw)


def test_round_trip(tmp_path):
    store = BaselineStore(tmp_path)
    update = store.update("vboard-hs", [_result("1M")], "run-1")
    assert (update.status, update.written, update.skipped) == ("created", ("usb.msc.read[bs=1M]",), ())
    baseline = BaselineStore(tmp_path).load("vboard-hs")
    assert baseline is not None
    assert baseline.run_id == "run-1"
    assert baseline.samples_for("usb.msc.read[bs=1M]") == [40.0, 41.0, 42.0]
    assert baseline.median_for("usb.msc.read[bs=1M]") == 41.0
    assert baseline.run_for("usb.msc.read[bs=1M]") == "run-1"
    assert baseline.samples_for("usb.msc.read[bs=4k]") is None
    assert baseline.facts == {"kernel": "6.1.0-27-amd64", "link_speed": "480M"}


def test_no_file_means_no_baseline(tmp_path):
    assert BaselineStore(tmp_path).load("other") is None


def test_file_is_pretty_and_key_sorted_for_review(tmp_path):
    store = BaselineStore(tmp_path)
    store.update("vboard-hs", [_result("4k"), _result("1M")], "run-1")
    text = store.path_for("vboard-hs").read_text()
    data = json.loads(text)
    assert text == json.dumps(data, indent=2, sort_keys=True) + "\n"
    assert list(data["metrics"]) == ["usb.msc.read[bs=1M]", "usb.msc.read[bs=4k]"]
    assert set(data) == {"board", "run", "created", "facts", "metrics"}
    assert set(data["metrics"]["usb.msc.read[bs=1M]"]) == {"unit", "runs"}
    assert set(data["metrics"]["usb.msc.read[bs=1M]"]["runs"][0]) == {"run", "samples", "median"}


def test_partial_update_merges_and_keeps_other_metrics(tmp_path):
    store = BaselineStore(tmp_path)
    store.update("vboard-hs", [_result("4k", (10.0, 11.0)), _result("1M")], "run-1")
    update = BaselineStore(tmp_path).update("vboard-hs", [_result("1M", (50.0, 51.0))], "run-2")
    assert update.status == "updated"
    baseline = BaselineStore(tmp_path).load("vboard-hs")
    assert baseline.run_id == "run-2"
    assert baseline.runs_for("usb.msc.read[bs=1M]") == [[40.0, 41.0, 42.0], [50.0, 51.0]]  # runs accumulate
    assert baseline.run_for("usb.msc.read[bs=1M]") == "2 runs run-1 .. run-2"
    assert baseline.runs_for("usb.msc.read[bs=4k]") == [[10.0, 11.0]]  # not measured: kept
    assert baseline.run_for("usb.msc.read[bs=4k]") == "run-1"
    assert update.runs_held == (2, 2)


def test_a_baseline_keeps_the_newest_runs_and_one_entry_per_run(tmp_path):
    for run in ("r1", "r2", "r3", "r4"):
        BaselineStore(tmp_path, runs_kept=3).update("vboard-hs", [_result("1M", (float(run[1]), 9.0))], run)
    again = BaselineStore(tmp_path, runs_kept=3).update("vboard-hs", [_result("1M", (7.0, 8.0))], "r4")
    baseline = BaselineStore(tmp_path).load("vboard-hs")
    assert baseline.runs_for("usb.msc.read[bs=1M]") == [[2.0, 9.0], [3.0, 9.0], [7.0, 8.0]]
    assert baseline.run_medians() == {"usb.msc.read[bs=1M]": [5.5, 6.0, 7.5]}
    assert again.runs_held == (3, 3)


def test_a_one_run_file_of_the_earlier_format_reads_as_one_run(tmp_path):
    (tmp_path / "vboard-hs.json").write_text(
        json.dumps({"board": "vboard-hs", "run": "old", "created": "c", "facts": {},
                    "metrics": {"m[bs=1M]": {"unit": "MB/s", "samples": [9.0, 9.5], "median": 9.25}}})
    )  # fmt: skip
    baseline = BaselineStore(tmp_path).load("vboard-hs")
    assert baseline.runs_for("m[bs=1M]") == [[9.0, 9.5]] and baseline.run_for("m[bs=1M]") == "old"


def test_errors_and_lone_samples_are_not_baselines(tmp_path):
    store = BaselineStore(tmp_path)
    update = store.update("vboard-hs", [_result("1M", verdict=Verdict.ERROR), _result("4k", (40.0,))], "r")
    assert (update.status, update.written) == ("unchanged", ())
    assert update.skipped == ("usb.msc.read[bs=1M]", "usb.msc.read[bs=4k]")
    assert not store.path_for("vboard-hs").exists()


def test_update_all_writes_one_file_per_board(tmp_path):
    store = BaselineStore(tmp_path)
    updates = store.update_all([_result("1M", board="b/one"), _result("1M", board="two")], "r")
    assert [(u.board, u.path.name) for u in updates] == [("b/one", "b_one.json"), ("two", "two.json")]
    assert store.load("b/one").board == "b/one"


def test_results_of_another_board_are_refused(tmp_path):
    with pytest.raises(ValueError, match="other boards: x"):
        BaselineStore(tmp_path).update("vboard-hs", [_result("1M", board="x")], "r")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not valid JSON"),
        ('{"board": "vboard-hs", "run": "r", "created": "c"}', "KeyError: 'metrics'"),
        (
            '{"board": "vboard-hs", "run": "r", "created": "c", "metrics": {"k": {"unit": "MB/s",'
            ' "samples": [1, "x"], "median": 1}}}',
            "is not a finite number",
        ),
        ('{"board": "other", "run": "r", "created": "c", "metrics": {}}', "holds board 'other'"),
    ],
)
def test_corrupt_baseline_names_the_file(tmp_path, content, message):
    store = BaselineStore(tmp_path)
    store.path_for("vboard-hs").write_text(content)
    assert store.load("vboard-hs") is None  # no comparison: the run's own verdicts stand
    (problem,) = store.unreadable
    assert problem.startswith(str(store.path_for("vboard-hs"))) and message in problem
    with pytest.raises(BaselineFileError, match=message):  # an update on top of it refuses, naming it
        store.update("vboard-hs", [_result("1M")], "run-2")
