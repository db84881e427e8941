"""One release gate, three places: `hil compare`, the run's own --reference-build gate and the dashboard's stored
matrix cell decide the same stored runs alike (hil.db.gates, hil.verdict.gate), on SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hil.db import gates
from hil.db.engine import open_db
from hil.db.gates import Side, compare_sides, load_side
from hil.db.write import write_run
from hil.records.store import RunInfo
from hil.report.compare import main as compare
from hil.report.testing import example_result
from hil.verdict.gate import Gate
from hil.verdict.result import Verdict
from hil.verdict.spec import Band

SPREAD = (0.99, 1.0, 1.01, 1.005, 0.995, 1.002, 0.998, 1.003)  # 8 vs 8 samples: p < 0.01 is reachable
BAND = Band(25.0, 48.0)  # every level below inside it: a PASS its samples give (hil.verdict.gate.band_verdict)


def _run(engine, build: str, day: int, level: float, verdict: Verdict = Verdict.PASS, spread: float = 0.02) -> None:
    """`spread`: the pair's calibrated run_spread (boards.yaml), which its results carry; 0.01: none calibrated."""
    info = RunInfo(id=f"2025110{day}T100000Z-{build}", started=f"2025-11-0{day}T10:00:00+00:00")
    info.build = {"name": build, "version": ""}
    read = example_result(verdict, values=[level * f for f in SPREAD], band=BAND)
    write = example_result(metric="usb.msc.write", values=[30.0 * f for f in SPREAD], band=BAND)
    write_run(engine, info, [replace(result, min_run_spread=spread) for result in (read, write)])


# candidate's read level against the reference's 40 MB/s, its verdict, the pair's run_spread -> the gate, and what
# the cell names. One run a side: a drop blocks only beyond the spread the pair has shown (its calibration).
CASES = {
    "a 20% drop": (32.0, Verdict.PASS, 0.02, Gate.BLOCKED, "usb.msc.read[bs=1M] -20.0%"),
    "a 20% drop, no spread shown": (32.0, Verdict.PASS, 0.01, Gate.INCOMPLETE, "usb.msc.read[bs=1M] cannot tell"),
    "a 5% drop within a 5% spread": (38.0, Verdict.PASS, 0.05, Gate.INCOMPLETE, "usb.msc.read[bs=1M] cannot tell"),
    "the same": (40.1, Verdict.PASS, 0.02, Gate.PASS, "2 metrics: no regression"),
    "a band failure": (40.0, Verdict.FAIL, 0.02, Gate.BLOCKED, "usb.msc.read[bs=1M] band FAIL"),
    "no verdict": (40.0, Verdict.ERROR, 0.02, Gate.INCOMPLETE, "usb.msc.read[bs=1M] no verdict in the candidate"),
}


@pytest.mark.parametrize(("level", "verdict", "spread", "expected", "named"), CASES.values(), ids=CASES.keys())
def test_compare_the_reference_build_option_and_the_dashboard_cell_agree(
    db_url, capsys, level, verdict, spread, expected, named
):
    engine = open_db(db_url)
    _run(engine, "rc1", 1, 40.0, spread=spread)
    _run(engine, "rc2", 2, level, verdict, spread=spread)
    assert gates.refresh(engine, {"rc2"}) == 1  # as a run's end, `hil db import` and `hil db push` do

    exit_status = compare(["rc1", "rc2", "--hil-db", db_url])
    assert f"## Release gate: {expected}" in capsys.readouterr().out
    assert exit_status == {Gate.PASS: 0, Gate.BLOCKED: 1, Gate.INCOMPLETE: 6}[expected]
    this_run = load_side("rc2", engine).runs  # --reference-build: the plugin compares its own run, live
    assert compare_sides(load_side("rc1", engine), Side("this run", this_run), live=True).gate is expected
    cell = gates.stored_cells(engine, ["rc2"])[("rc2", "vboard-hs")]
    assert (cell.gate, cell.reference) == (expected, "rc1")
    assert cell.summary.startswith(named), cell.summary


def test_a_run_of_the_reference_decides_the_next_builds_gate_again(db_url):
    """rc2's cell is against rc1: rc1 had not read when rc2 was stored (a metric new in the candidate passes on
    its band), its next run reads 40 MB/s, and rc2's cell becomes the 20% drop it is."""
    engine = open_db(db_url)
    for day, build, levels in (
        (1, "rc1", {"usb.msc.write": 30.0}),
        (3, "rc2", {"usb.msc.read": 32.0, "usb.msc.write": 30.0}),
    ):
        info = RunInfo(id=f"2025110{day}T100000Z-{build}", started=f"2025-11-0{day}T10:00:00+00:00")
        info.build = {"name": build, "version": ""}
        results = [example_result(metric=m, values=[v * f for f in SPREAD], band=BAND) for m, v in levels.items()]
        write_run(engine, info, [replace(result, min_run_spread=0.02) for result in results])
    gates.refresh(engine, {"rc2"})
    before = gates.stored_cells(engine, ["rc2"])[("rc2", "vboard-hs")]
    assert (before.gate, before.summary) == (Gate.PASS, "2 metrics: no regression")
    _run(engine, "rc1", 2, 40.0)
    assert gates.refresh(engine, {"rc1"}) == 2  # rc1's own cell and rc2's, whose reference it is
    after = gates.stored_cells(engine, ["rc2"])[("rc2", "vboard-hs")]
    assert (after.gate, after.summary) == (Gate.BLOCKED, "usb.msc.read[bs=1M] -20.0%")


def test_the_first_build_has_no_reference_and_says_so(db_url):
    engine = open_db(db_url)
    _run(engine, "rc1", 1, 40.0)
    gates.refresh(engine, {"rc1"})
    cell = gates.stored_cells(engine, ["rc1"])[("rc1", "vboard-hs")]
    assert (cell.gate, cell.reference, cell.summary) == (
        Gate.INCOMPLETE,
        None,
        "no reference: nothing stored before this build",
    )
