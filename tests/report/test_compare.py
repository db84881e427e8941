"""hil compare: the release gate over stored runs, on results files written as a run writes them.

The samples are hand-made (the comparison's statistics are hil.verdict.baseline's, tested there); what is
tested here is the gate: which metric blocks, which leaves it incomplete, what is bad input.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hil.report.compare import Gate, main
from hil.report.store import ResultStore, RunInfo
from hil.report.testing import example_result
from hil.verdict.result import Verdict

INVENTORY = {"path": "boards.yaml", "sha256": "a" * 64}
REFERENCE_RUNS = [
    [41.2, 41.9, 40.8, 41.5, 42.0, 41.1],
    [40.1, 40.6, 40.9, 40.3, 40.7, 40.2],
    [42.3, 42.0, 41.8, 42.6, 42.1, 41.9],
]


def _run(directory: Path, name: str, build: str | None, results, inventory=INVENTORY) -> Path:
    run = RunInfo.start(
        "pytest testcases", build={"name": build, "version": ""} if build else None, inventory=inventory
    )
    store = ResultStore(directory / f"{name}.json", run)
    for result in results:
        store.add(result)
    return store.path


def _results(read: list[float], write: list[float], write_verdict: Verdict = Verdict.PASS):
    return [
        example_result(values=read, metric="usb.msc.read"),
        example_result(write_verdict, values=write, metric="usb.msc.write"),
    ]


@pytest.fixture
def history(tmp_path):
    for index, values in enumerate(REFERENCE_RUNS):
        _run(tmp_path, f"ref{index}", "rc0", _results(values, values))
    return tmp_path


def test_a_candidate_that_is_slower_beyond_the_runs_spread_is_blocked_on_that_metric_only(history, capsys):
    _run(history, "cand", "rc1", _results([41.0, 41.6, 40.9, 41.3, 41.8, 41.2], [30.1, 30.5, 29.8, 30.3, 30.0, 30.6]))
    status = main(["rc0", "rc1", "--history", str(history), "--json", str(history / "gate.json")])
    gate = json.loads((history / "gate.json").read_text())
    assert status == 1 and gate["gate"] == Gate.BLOCKED
    rows = {row["key"]: row for row in gate["rows"]}
    assert rows["usb.msc.write[bs=1M]"]["gate"] == "BLOCKED" and rows["usb.msc.write[bs=1M]"]["regression"]
    assert rows["usb.msc.read[bs=1M]"]["gate"] == "PASS" and not rows["usb.msc.read[bs=1M]"]["regression"]
    assert gate["rows"][0]["key"] == "usb.msc.write[bs=1M]"  # what blocks comes first
    assert len(gate["reference"]["runs"]) == 3 and gate["candidate"]["build"]["name"] == "rc1"
    out = capsys.readouterr().out
    assert out.startswith("## Release gate: BLOCKED\n\n**BLOCKED: vboard-hs usb.msc.write[bs=1M] (regression)")


def test_a_candidate_like_the_reference_passes_and_markdown_and_html_are_written(history):
    _run(
        history,
        "same",
        "rc0-again",
        _results([41.3, 41.0, 41.8, 41.6, 40.9, 41.4], [41.1, 41.7, 41.2, 40.8, 41.9, 41.3]),
    )
    status = main(["rc0", "rc0-again", "--history", str(history), "--markdown", str(history / "g.md"),
                   "--html", str(history / "g.html")])  # fmt: skip
    assert status == 0
    assert "**PASS: no regression, no band failure (2 metrics" in (history / "g.md").read_text()
    page = (history / "g.html").read_text()
    assert "Release gate: candidate rc0-again" in page
    assert page.count("<style>") == 1 and "<table class='hil-summary'>" in page  # the report's own style applies


def test_a_band_failure_blocks_and_an_error_or_a_missing_metric_leaves_the_gate_incomplete(history):
    values = REFERENCE_RUNS[0]
    _run(history, "fail", "rc2", _results(values, values, write_verdict=Verdict.FAIL))
    assert main(["rc0", "rc2", "--history", str(history)]) == 1
    _run(history, "error", "rc3", _results(values, values, write_verdict=Verdict.ERROR))
    assert main(["rc0", "rc3", "--history", str(history)]) == 6
    _run(history, "partial", "rc4", [example_result(values=values, metric="usb.msc.read")])
    assert main(["rc0", "rc4", "--history", str(history), "--json", str(history / "p.json")]) == 6
    rows = json.loads((history / "p.json").read_text())["rows"]
    assert rows[0]["gate"] == "INCOMPLETE" and rows[0]["why"] == "not measured in the candidate"


def _calibrated(result, run_spread: float):
    result.min_run_spread = run_spread  # boards.yaml run_spread, stored with each result
    return result


@pytest.mark.parametrize(("calibrated", "gate"), [(0.14, "INCOMPLETE"), (0.01, "PASS")])
def test_a_drop_hidden_by_reference_runs_wider_than_calibrated_leaves_the_gate_incomplete(tmp_path, calibrated, gate):
    # Reference runs of one build that moved 21% between them (a CI run's, 2026-11-27: a loaded lab PC), a
    # candidate 33% slower: not beyond such runs, yet the pair was calibrated to 14%: the gate cannot see.
    medians = [3600.0, 4400.0, 2900.0, 4100.0]
    for index, median in enumerate(medians):
        values = [median * f for f in (0.98, 1.0, 1.01, 0.99, 1.02)]
        _run(tmp_path, f"ref{index}", "ref", [_calibrated(example_result(values=values), calibrated)])
    candidate = [2560.0 * f for f in (0.98, 1.0, 1.01, 0.99, 1.02)]
    _run(tmp_path, "rc", "rc", [_calibrated(example_result(values=candidate), calibrated)])
    status = main(["ref", "rc", "--history", str(tmp_path), "--json", str(tmp_path / "gate.json")])
    (row,) = json.loads((tmp_path / "gate.json").read_text())["rows"]
    assert row["gate"] == gate and not row["regression"] and row["change"] < -0.3, row
    assert status == {"INCOMPLETE": 6, "PASS": 0}[gate]
    if gate == "INCOMPLETE":
        assert "cannot tell: the reference runs spread" in row["why"] and "calibrated 14%" in row["why"]
    else:  # a pair never calibrated: its runs' own spread is all there is to go by, as before
        assert "clean runs move this much" in row["why"]


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["rc9", "rc0"], "no run of build 'rc9' stored in"),
        (["ref0.json", "nope.json"], "nope.json: no results file of that name"),
        (["rc0", "other-inventory"], "the runs come from different inventories"),
        (["rc0", "rc0"], "build 'rc0' is on both sides"),
        (["broken.json", "rc0"], "broken.json"),
    ],
    ids=["build without runs", "missing file", "two inventories", "same build", "unreadable file"],
)
def test_bad_input_is_a_usage_error_naming_the_file_or_build(history, monkeypatch, capsys, arguments, says):
    _run(history, "other", "other-inventory", _results(REFERENCE_RUNS[0], REFERENCE_RUNS[0]), inventory={
        "path": "lab2/boards.yaml", "sha256": "b" * 64})  # fmt: skip
    (history / "broken.json").write_text('{"schema": 1, "run": ')
    monkeypatch.chdir(history)
    assert main([*arguments, "--history", str(history)]) == 4
    assert says in capsys.readouterr().err
