"""hil compare: the release gate over the runs of two builds in the results database (an SQLite file here;
tests/db runs the storage itself on PostgreSQL too).

The samples are hand-made (the comparison's statistics are hil.verdict.baseline's, tested there); what is
tested here is the gate: which metric blocks, which leaves it incomplete, what is refused.
"""

from __future__ import annotations

import json

import pytest
from pc_lab import PC_ENV, PC_PAIR

from hil.db.engine import open_db
from hil.db.write import write_run
from hil.records.store import RunInfo
from hil.report.compare import main
from hil.report.testing import example_result
from hil.verdict.gate import Gate
from hil.verdict.result import Verdict
from hil.verdict.spec import Band

INVENTORY = {"path": "boards.yaml", "sha256": "a" * 64}
REFERENCE_RUNS = [
    [41.2, 41.9, 40.8, 41.5, 42.0, 41.1],
    [40.1, 40.6, 40.9, 40.3, 40.7, 40.2],
    [42.3, 42.0, 41.8, 42.6, 42.1, 41.9],
]


def _run(db, build: str | None, results, inventory=INVENTORY) -> str:
    run = RunInfo.start(
        "pytest testcases", build={"name": build, "version": ""} if build else None, inventory=inventory
    )
    write_run(db.engine, run, results)
    return run.id


def _results(read: list[float], write: list[float], write_verdict: Verdict = Verdict.PASS):
    return [
        example_result(values=read, metric="usb.msc.read"),
        example_result(write_verdict, values=write, metric="usb.msc.write"),
    ]


class Db:
    def __init__(self, tmp_path):
        self.path = tmp_path
        self.url = f"sqlite:///{tmp_path / 'hil.db'}"
        self.engine = open_db(self.url)

    def compare(self, *arguments: str) -> int:
        return main([*arguments, "--hil-db", self.url])

    def gate(self, *arguments: str) -> dict:
        self.compare(*arguments, "--json", str(self.path / "gate.json"))
        return json.loads((self.path / "gate.json").read_text())


@pytest.fixture
def db(tmp_path):
    return Db(tmp_path)


@pytest.fixture
def history(db):
    for values in REFERENCE_RUNS:
        _run(db, "rc0", _results(values, values))
    return db


def test_a_candidate_that_is_slower_beyond_the_runs_spread_is_blocked_on_that_metric_only(history, capsys):
    _run(history, "rc1", _results([41.0, 41.6, 40.9, 41.3, 41.8, 41.2], [30.1, 30.5, 29.8, 30.3, 30.0, 30.6]))
    status = history.compare("rc0", "rc1", "--json", str(history.path / "gate.json"))
    gate = json.loads((history.path / "gate.json").read_text())
    assert status == 1 and gate["gate"] == Gate.BLOCKED
    rows = {row["key"]: row for row in gate["rows"]}
    assert rows["usb.msc.write[bs=1M]"]["gate"] == "BLOCKED" and rows["usb.msc.write[bs=1M]"]["regression"]
    assert rows["usb.msc.read[bs=1M]"]["gate"] == "PASS" and not rows["usb.msc.read[bs=1M]"]["regression"]
    assert gate["rows"][0]["key"] == "usb.msc.write[bs=1M]"  # what blocks comes first
    assert len(gate["reference"]["runs"]) == 3 and gate["candidate"]["build"]["name"] == "rc1"
    out = capsys.readouterr().out
    assert out.startswith("## Release gate: BLOCKED\n\n**BLOCKED: vboard-hs usb.msc.write[bs=1M] (regression)")


def test_a_blocked_rows_diagnosis_is_in_the_markdown_gate_under_its_why(history, capsys):
    slower = _results([41.0, 41.6, 40.9, 41.3, 41.8, 41.2], [30.1, 30.5, 29.8, 30.3, 30.0, 30.6])
    slower[1].facts.notes["diagnosis"] = ["device: 31.0 MB/s | on the board", "bus: high speed"]
    _run(history, "rc1", slower)
    assert history.compare("rc0", "rc1") == 1
    row = next(line for line in capsys.readouterr().out.splitlines() if "usb.msc.write" in line and "| BLOCKED" in line)
    assert "<br/>diagnosis: device: 31.0 MB/s / on the board<br/>diagnosis: bus: high speed<br/>" in row


def test_a_blocked_row_is_diagnosed_against_the_reference_from_what_both_builds_stored(db):
    """What moved between the builds: the board's kernel, the row's CPU companion, and none of its other figures."""

    def run(build: str, kernel: str, write: float, cpu: float) -> None:
        facts = {"kernel.vboard": kernel, "link_speed": "480M", "build": build}
        spread = (0.99, 1.0, 1.01, 1.0, 0.995)
        results = [
            example_result(values=[41.0 * f for f in spread], metric="usb.msc.read", facts=facts),
            example_result(values=[write * f for f in spread], metric="usb.msc.write", facts=facts, band=Band(30, 50)),
            example_result(values=[cpu * f for f in spread], metric="usb.msc.write.cpu_busiest", unit="%", facts=facts),
        ]
        _run(db, build, results)

    for _ in range(3):
        run("rc0", "6.1.0-27-amd64", 41.0, 40.0)
    run("rc1", "6.1.0-28-amd64", 37.0, 44.0)
    rows = {row["key"]: row for row in db.gate("rc0", "rc1")["rows"]}
    assert rows["usb.msc.write[bs=1M]"]["gate"] == "BLOCKED" and rows["usb.msc.write[bs=1M]"]["regression"]
    assert rows["usb.msc.write[bs=1M]"]["diagnosis"] == [
        "between builds: kernel.vboard 6.1.0-27-amd64 -> 6.1.0-28-amd64",
        "between builds: usb.msc.write.cpu_busiest[bs=1M] 40 -> 44 % (+10.0%)",
        "between builds: none of the board's 1 other figures moved by its min_effect",
    ]
    assert rows["usb.msc.read[bs=1M]"]["gate"] == "PASS" and rows["usb.msc.read[bs=1M]"]["diagnosis"] == []


def test_a_candidate_like_the_reference_passes_and_markdown_and_html_are_written(history):
    same = _results([41.3, 41.0, 41.8, 41.6, 40.9, 41.4], [41.1, 41.7, 41.2, 40.8, 41.9, 41.3])
    _run(history, "rc0-again", same)
    status = history.compare("rc0", "rc0-again", "--markdown", str(history.path / "g.md"),
                             "--html", str(history.path / "g.html"))  # fmt: skip
    assert status == 0
    assert "**PASS: no regression, no band failure (2 metrics" in (history.path / "g.md").read_text()
    page = (history.path / "g.html").read_text()
    assert "Release gate: candidate rc0-again" in page
    assert (
        page.count("<style>") == 1 and '<table class="hil-summary" id="hil-gate-rows">' in page
    )  # the report's own style applies


def test_a_band_failure_blocks_and_an_error_or_a_missing_metric_leaves_the_gate_incomplete(history):
    values = REFERENCE_RUNS[0]
    _run(history, "rc2", _results(values, values, write_verdict=Verdict.FAIL))
    assert history.compare("rc0", "rc2") == 1
    _run(history, "rc3", _results(values, values, write_verdict=Verdict.ERROR))
    assert history.compare("rc0", "rc3") == 6
    _run(history, "rc4", [example_result(values=values, metric="usb.msc.read")])
    rows = history.gate("rc0", "rc4")["rows"]
    assert rows[0]["gate"] == "INCOMPLETE" and rows[0]["why"] == "not measured in the candidate"


def test_figures_of_two_clocks_are_never_compared_and_both_rows_say_why(history):
    virtual = {"bs": "1M", "clock": "virtual"}  # the pair moved to the virtual clock: its figure is another one
    rate = example_result(values=[20.0, 20.1, 20.0, 20.1, 20.0], params=virtual, band=Band(15.0, 25.0))
    _run(history, "rc5", [rate])
    gate = history.gate("rc0", "rc5")
    rows = {row["key"]: row for row in gate["rows"]}
    assert gate["gate"] == "INCOMPLETE" and not any(row["regression"] for row in gate["rows"])  # -52%, not compared
    real, on_virtual = rows["usb.msc.read[bs=1M]"], rows["usb.msc.read[bs=1M,clock=virtual]"]
    assert real["gate"] == "INCOMPLETE" and on_virtual["reference_median"] is None
    assert "the candidate measured it on the virtual clock, the reference on the real" in real["why"]
    assert "the reference measured it on the real clock, the candidate on the virtual" in on_virtual["why"]
    assert "clock" not in rows["usb.msc.write[bs=1M]"]["why"]  # not measured by the candidate at all


def _calibrated(result, run_spread: float):
    result.min_run_spread = run_spread  # boards.yaml run_spread, stored with each result
    return result


@pytest.mark.parametrize("calibrated", [0.07, 0.01])
def test_a_drop_the_reference_runs_cannot_confirm_leaves_the_gate_incomplete(db, calibrated):
    # Reference runs of one build that moved 21% between them (a CI run's, 2026-11-27: a loaded lab PC), a
    # candidate 33% slower: not beyond such runs. Calibrated to 7%, the reference is too wide to see;
    # never calibrated, the runs' own spread is all there is to go by, and a 33% drop within it is no PASS
    # (a CI run, 2026-11-28: -27.4% within a 30.4% reach passed as "no regression").
    medians = [3600.0, 4400.0, 2900.0, 4100.0]
    for median in medians:
        values = [median * f for f in (0.98, 1.0, 1.01, 0.99, 1.02)]
        _run(
            db, "ref", [_calibrated(example_result(values=values, band=Band(2000.0, 5000.0), ceiling=None), calibrated)]
        )
    candidate = [2560.0 * f for f in (0.98, 1.0, 1.01, 0.99, 1.02)]
    _run(db, "rc", [_calibrated(example_result(values=candidate, band=Band(2000.0, 5000.0), ceiling=None), calibrated)])
    document = db.gate("ref", "rc")
    (row,) = document["rows"]
    assert row["gate"] == "INCOMPLETE" and not row["regression"] and row["change"] < -0.3, row
    assert db.compare("ref", "rc") == 6
    assert row["smallest_drop"] > 0.3  # these reference runs could not have caught even this drop
    # At 7% between boots one candidate run never shows a 5% drop, however many reference runs.
    assert "no number of reference runs would let 1 candidate run(s) show a 5% drop" in row["why"]
    if calibrated == 0.07:
        assert "cannot tell: the reference runs spread" in row["why"] and "calibrated 7%" in row["why"]
        assert "measure the reference again on a quiet lab" in row["why"] and row["runs_needed"] is None
    else:
        assert "clean runs move this much" in row["why"] and "measure the candidate more times" in row["why"]
        assert "cannot tell: a 33.5% worsening, significant within the runs, is within what runs" in row["why"]


def test_a_rate_calibrated_on_the_virtual_clock_blocks_a_2_percent_drop_with_two_runs_against_two(db):
    """The virtual clock's MSC read repeated to 0.013% between boots while its busiest-core share spread 25%
    (vlab-hs, 2026-11-29): the rate's run-to-run spread is told by the board's rates and floored at the pair's
    calibrated 0.5%, not by the CPU share beside it (pooled over both, a 3.5% drop was the least it could see)."""

    def run(build: str, read: float, busy: float) -> None:
        rate = example_result(values=[read * f for f in (0.9999, 1.0, 1.0001)], band=Band(36.0, 40.0))
        cpu = example_result(values=[busy, busy * 1.01, busy * 0.99], metric="usb.msc.read.cpu_busiest", unit="%")
        cpu.band = Band(0.0, 100.0)
        rate.min_effect, rate.min_run_spread = 0.01, 0.005  # boards.yaml's min_effect and run_spread for each
        cpu.min_effect, cpu.min_run_spread = 0.01, 0.3
        _run(db, build, [rate, cpu])

    run("ref", 38.303, 2.95)
    run("ref", 38.306, 3.9)
    run("rc", 38.303 * 0.98, 3.0)
    run("rc", 38.306 * 0.98, 3.8)
    rows = {row["key"]: row for row in db.gate("ref", "rc")["rows"]}
    read, cpu = rows["usb.msc.read[bs=1M]"], rows["usb.msc.read.cpu_busiest[bs=1M]"]
    assert read["gate"] == "BLOCKED" and read["regression"] and read["change"] == pytest.approx(-0.02, abs=1e-4)
    assert read["smallest_drop"] < 0.02, read
    assert cpu["gate"] == "PASS" and not cpu["regression"], cpu  # its own 25% spread, its own verdict


def test_two_reference_runs_a_little_wider_than_calibrated_are_chance_and_twice_as_wide_a_loaded_lab(db):
    """An idle vCPU's share, run_spread 40%: two runs of one image 43% apart say nothing of the lab (the virtual-clock
    test's identical builds read 40.4% and were left INCOMPLETE, 2026-11-30); runs spread twice that did not
    happen by chance at 1 df (chi-square, 5%), and the gate cannot see."""

    def run(build: str, busy: float) -> None:
        cpu = example_result(values=[busy, busy * 1.01, busy * 0.99], metric="usb.msc.read.cpu_busiest", unit="%")
        cpu.band, cpu.min_effect, cpu.min_run_spread = Band(0.0, 100.0), 0.05, 0.4
        _run(db, build, [cpu])

    for build, medians in (("ref", (1.6, 3.0)), ("twin", (3.0, 1.6)), ("loaded", (1.0, 5.0))):
        for median in medians:
            run(build, median)
    (row,) = db.gate("ref", "twin")["rows"]
    assert row["gate"] == "PASS" and "cannot tell" not in row["why"], row
    (row,) = db.gate("loaded", "twin")["rows"]
    assert row["gate"] == "INCOMPLETE" and "more than the pair's calibrated 40%" in row["why"], row
    assert "beyond chance (2 df, 5%): measure the reference again on a quiet lab" in row["why"], row


def test_each_row_states_the_smallest_drop_it_could_catch_and_the_reference_runs_for_min_effect(db):
    def run_around(build, median):
        _run(db, build, [example_result(values=[median * f for f in (0.99, 1.0, 1.01, 0.995, 1.005, 1.0)])])

    run_around("rc0", 40.0)
    run_around("rc0", 41.2)
    run_around("rc1", 40.5)
    # Two reference runs 3% apart: a drop under about 7.5% is within what runs move; a third run would do.
    (row,) = db.gate("rc0", "rc1")["rows"]
    assert row["gate"] == "PASS" and 0.07 < row["smallest_drop"] < 0.08 and row["runs_needed"] == 3, row
    assert f"could catch a drop of {row['smallest_drop']:.1%} or more" in row["why"]
    assert "3 reference runs would catch a 5% drop" in row["why"]
    run_around("rc0", 40.6)  # the third run it asked for
    (row,) = db.gate("rc0", "rc1")["rows"]
    assert row["smallest_drop"] == 0.05 and row["runs_needed"] is None, row


def test_a_candidate_in_another_unit_is_refused_naming_both_runs(history, capsys):
    """Was: a candidate stored in Mbit/s against a reference in MB/s passed with "+696%"."""
    in_bits = [example_result(values=[v * 8 for v in REFERENCE_RUNS[0]], unit="Mbit/s", metric=m)
               for m in ("usb.msc.read", "usb.msc.write")]  # fmt: skip
    candidate = _run(history, "rc-bits", in_bits)
    assert history.compare("rc0", "rc-bits") == 4
    err = capsys.readouterr().err
    assert "vboard-hs usb.msc.read[bs=1M]: unit 'MB/s' in run " in err and f"'Mbit/s' in run {candidate}" in err
    assert "(build rc0)" in err and "(build rc-bits)" in err


def _with_min_effect(results, min_effect):
    for result in results:
        result.min_effect = min_effect
    return results


def test_thresholds_stored_with_the_candidate_never_rule_the_gate(db, capsys, tmp_path):
    """Was: a candidate whose stored min_effect was 500% let a 50% drop pass."""
    (tmp_path / "lab.yaml").write_text(PC_ENV)
    (tmp_path / "boards.yaml").write_text(PC_PAIR)  # min_effect: the catalogue's default, 5%
    for values in REFERENCE_RUNS:
        _run(db, "rc0", [example_result(board="pc-pair", values=values)])
    half = [v / 2 for v in REFERENCE_RUNS[0]]
    _run(db, "rc1", _with_min_effect([example_result(board="pc-pair", values=half)], 5.0))
    assert db.compare("rc0", "rc1") == 4
    assert "min_effect 0.05 in run" in capsys.readouterr().err
    # With the inventory in force named, its min_effect decides: the 50% drop blocks.
    gate = db.gate("rc0", "rc1", "--inventory", str(tmp_path / "boards.yaml"))
    assert gate["gate"] == "BLOCKED" and gate["rows"][0]["regression"] and gate["rows"][0]["change"] < -0.45


def test_a_pass_without_samples_is_no_verdict(history):
    """Was: a result marked PASS with no samples gave a gate PASS."""
    _run(history, "rc-empty", [example_result(values=[], metric=m) for m in ("usb.msc.read", "usb.msc.write")])
    gate = history.gate("rc0", "rc-empty")
    assert gate["gate"] == "INCOMPLETE" and history.compare("rc0", "rc-empty") == 6
    assert all("PASS with fewer than 2 samples stored" in row["why"] for row in gate["rows"])


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["rc9", "rc0"], "no run of build 'rc9' stored in the results database"),
        (["rc0", "other-inventory"], "the runs come from different inventories"),
        (["rc0", "rc0"], "build 'rc0' is on both sides"),
    ],
    ids=["build without runs", "two inventories", "same build"],
)
def test_bad_input_is_a_usage_error_naming_the_build(history, capsys, arguments, says):
    _run(history, "other-inventory", _results(REFERENCE_RUNS[0], REFERENCE_RUNS[0]), inventory={
        "path": "lab2/boards.yaml", "sha256": "b" * 64})  # fmt: skip
    assert history.compare(*arguments) == 4
    assert says in capsys.readouterr().err


def test_a_database_that_is_not_one_is_named(tmp_path, capsys):
    bad = tmp_path / "hil.db"
    bad.write_text("a results.json, perhaps, but no database")
    assert main(["rc0", "rc1", "--hil-db", f"sqlite:///{bad}"]) == 4
    assert f"SQLite file {bad}: cannot be opened" in capsys.readouterr().err


def _on(results, place: str, kernel: str):
    for result in results:
        result.facts.lab = f"place {place} on coordinator lab:20408"
        result.facts.board("device").arch, result.facts.board("device").kernel = "aarch64", kernel
    return results


def test_a_reference_measured_on_another_board_says_so_and_is_still_compared(db):
    for values in REFERENCE_RUNS:
        _run(db, "rc0", _on(_results(values, values), "imx8-a", "6.1.0"))
    same = REFERENCE_RUNS[0]
    _run(db, "rc1", _on(_results(same, same), "imx8-b", "6.6.0"))  # a new kernel is the build, not the board
    _run(db, "rc2", _on(_results(same, same), "imx8-a", "6.6.0"))
    gate = db.gate("rc0", "rc1")
    said = "reference measured on board lab place imx8-a on coordinator lab:20408, candidate on lab place imx8-b"
    assert gate["gate"] == "PASS" and all(said in row["why"] and "kernel" not in row["why"] for row in gate["rows"])
    assert not any("measured on board" in row["why"] for row in db.gate("rc0", "rc2")["rows"])
