"""With -v, each sample's live line reaches the output a pipeline logs: stdout redirected to a file, with
and without pytest-xdist (whose workers have no terminal of their own: their lines travel with the test's
report to the controller). A pair on this PC (tests/pc_lab.py) runs real `perf.check`s; the samples are
scripted, since what is under test is where the lines go. pytester's subprocess runs write stdout to a
file, as a pipeline's `pytest -v > log` does.
"""

from __future__ import annotations

import json

import pytest
from pc_lab import PC_ENV, PC_PAIR

BOARDS = "defaults: {min_samples: 3, max_samples: 3, warmup: 1, max_cv: 50%, min_effect: 5%}\n" + PC_PAIR

TESTS = """
import json, pathlib
import pytest

@pytest.mark.hil_metrics("usb.msc.read")
@pytest.mark.parametrize("case", ["first", "second"])
def test_read(pair, perf, case):
    state = pathlib.Path(f"attempts-{case}")
    attempt = int(state.read_text()) if state.exists() else 0
    state.write_text(str(attempt + 1))
    speeds = json.loads(pathlib.Path("speeds.json").read_text())
    speed = speeds[min(attempt, len(speeds) - 1)]
    values = iter([speed * f for f in (0.9, 1.0, 1.01, 0.99)])
    perf.check("usb.msc.read", bs="1M", case=case, sample=lambda: next(values))  # a key per case
"""

# What each sample's line says, in order: the warm-up, then the counted samples with their running figures.
EXPECTED = [
    "*pc-pair warmup 1: usb.msc.read 90 (* s)",
    "*pc-pair sample 1: usb.msc.read 100 (* s)",
    "*pc-pair sample 2: usb.msc.read 101 (median 100.5, CV 0.7%) (* s)",
    "*pc-pair sample 3: usb.msc.read 99 (median 100, CV 1.0%) (* s)",
]


@pytest.fixture
def lab(pytester):
    pytester.makefile(".yaml", lab=PC_ENV, boards=BOARDS)
    pytester.makepyfile(test_read=TESTS)
    return pytester


def _run(lab, speeds, *args):
    (lab.path / "speeds.json").write_text(json.dumps(speeds))
    for state in lab.path.glob("attempts-*"):
        state.unlink()
    return lab.runpytest_subprocess("-p", "no:cacheprovider", *args)


def _lines_of(result, test_id):
    """The output lines from the start of `test_id` to its outcome line."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if line.startswith(f"test_read.py::{test_id}"))
    end = next(i for i, line in enumerate(lines) if i > start and ("PASSED" in line or "FAILED" in line))
    return lines[start : end + 1]


def test_live_lines_reach_stdout_redirected_to_a_file(lab):
    result = _run(lab, [100.0], "-v")
    result.assert_outcomes(passed=2)
    for case in ("first", "second"):
        shown = _lines_of(result, f"test_read[pc-pair-{case}]")
        live = [line for line in shown[1:-1] if line]  # the reporter ends its half-written test line first
        assert [line.startswith("    pc-pair ") for line in live] == [True] * 4, shown
        pytest.LineMatcher(live).fnmatch_lines(EXPECTED, consecutive=True)


def test_live_lines_stay_out_of_the_log_without_verbose(lab):
    result = _run(lab, [100.0])
    result.assert_outcomes(passed=2)
    assert "warmup 1:" not in result.stdout.str()


def test_live_lines_of_xdist_workers_reach_the_controllers_log(lab):
    result = _run(lab, [100.0], "-v", "-p", "xdist", "-n", "2")
    result.assert_outcomes(passed=2)
    for case in ("first", "second"):
        shown = _lines_of(result, f"test_read[pc-pair-{case}]")
        expected = [line.replace("*pc-pair", "    [[]gw?[]] pc-pair") for line in EXPECTED]
        pytest.LineMatcher(shown).fnmatch_lines([*expected, "[[]gw?[]] *PASSED*"], consecutive=True)


def test_a_first_attempts_live_lines_reach_the_log_when_a_regression_is_re_measured_under_xdist(lab):
    for speed in (100.0, 97.0, 103.0):
        _run(lab, [speed], "--update-baseline").assert_outcomes(passed=2)
    result = _run(lab, [60.0], "-v", "-p", "xdist", "-n", "2", "--baseline")
    result.assert_outcomes(failed=2)
    for case in ("first", "second"):
        assert (lab.path / f"attempts-{case}").read_text() == "2", "the suspicion was re-measured"
        shown = _lines_of(result, f"test_read[pc-pair-{case}]")
        assert sum("] pc-pair warmup 1: usb.msc.read 54 " in line for line in shown) == 2, shown  # both attempts
