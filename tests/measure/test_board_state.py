"""hil.measure.board_state on the virtual board's real output (tests/data/operating_point/capture_vlab.py):
/proc/stat and the operating point from one command, each part checked by its own parser."""

import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from hil.lab.board.role import Role
from hil.measure import board_state, cpuload, operating_point
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "operating_point"
POINT = f"{board_state.SECTION}state {board_state.OPERATING_POINT}"  # the operating point's header
BOOTED = (DATA / "vlab-board-state.txt").read_text()
OFFLINE = (DATA / "vlab-board-state-cpu1-offline.txt").read_text()


def test_one_output_gives_both_parts():
    stat, point = board_state.parse_state(BOOTED)
    assert {"cpu", "cpu0", "cpu1"} <= stat.keys()
    assert point.online.get("cpu1") is True


def test_a_core_taken_offline_leaves_no_load_figure_and_is_named_as_a_move():
    role = Role("rc", SimpleNamespace(name="vboard"), "vlab")  # only its names are read: no board runs
    (before, was), (after, now) = board_state.parse_state(BOOTED), board_state.parse_state(OFFLINE)
    assert cpuload.load(role, before, after) is None
    assert operating_point.change(role, was, now).moved == ["cpu1 went offline"]


@pytest.mark.parametrize(
    "damaged",
    [
        BOOTED.replace(POINT, POINT.replace("point", "pint")),  # a header garbled: which part is which?
        BOOTED.split(POINT)[0],  # cut after /proc/stat
        BOOTED.replace("\nend", "\n"),  # the operating point cut short
        BOOTED.replace("cpu0 ", "cpu0 x", 1),  # a /proc/stat line damaged
    ],
)
def test_damaged_output_is_refused_with_the_raw_output(damaged):
    with pytest.raises(ParseError) as refused:
        board_state.parse_state(damaged)
    assert refused.value.raw_output == damaged


def test_a_path_s_glob_reads_every_file_and_nothing_else_of_it_reaches_the_shell(tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"zone{name}").mkdir()
        (tmp_path / f"zone{name}" / "temp").write_text(f"4{name}\n")
    hostile = f"{tmp_path}/x;echo PWNED>{tmp_path}/pwned;*"  # a disk name a board printed, inside a globbed path
    script = board_state.script("t", [f"{tmp_path}/zone*/temp", hostile])
    output = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=False).stdout
    found = board_state.parse(output, "t")
    assert found[f"{tmp_path}/zonea/temp"] == "4a" and found[f"{tmp_path}/zoneb/temp"] == "4b"
    assert not (tmp_path / "pwned").exists()
