"""With --baseline, a suspected regression is re-measured after a power cycle before it is called.

A pair on the lab PC (LocalShellDriver) runs real `perf.check`s through pytest; the sample source is
scripted (first attempt slow, second attempt slow or back to normal) because what is under test is
the protocol: which attempt is reported, what is recorded, and the verdict.
"""

from __future__ import annotations

import json

import pytest
from pc_lab import PC_ENV, PC_PAIR

ENV = PC_ENV
BOARDS = "defaults: {min_samples: 5, max_samples: 5, warmup: 1, max_cv: 50%, min_effect: 5%}\n" + PC_PAIR

# Each attempt reads its speed from speeds.json: one entry per attempt, the last one repeating.
TESTS = """
import json, pathlib
import pytest

@pytest.mark.hil_metrics("usb.msc.read")
def test_read(pair, perf):
    state = pathlib.Path("attempt")
    attempt = int(state.read_text()) if state.exists() else 0
    state.write_text(str(attempt + 1))
    speeds = json.loads(pathlib.Path("speeds.json").read_text())
    speed = speeds[min(attempt, len(speeds) - 1)]
    wobble = iter([0.0, 0.01, -0.01, 0.005, -0.005, 0.0] * 3)
    perf.check("usb.msc.read", bs="1M", sample=lambda: speed * (1 + next(wobble)))
"""


@pytest.fixture
def lab(pytester):
    pytester.makefile(".yaml", lab=ENV, boards=BOARDS)
    pytester.makepyfile(test_read=TESTS)
    return pytester


def _run(lab, speeds, *args):
    (lab.path / "speeds.json").write_text(json.dumps(speeds))
    (lab.path / "attempt").unlink(missing_ok=True)
    result = lab.runpytest_subprocess("-p", "no:cacheprovider", *args)
    results = json.loads((lab.path / "reports" / "results.json").read_text())["results"]
    return result, results, int((lab.path / "attempt").read_text())


@pytest.fixture
def baseline(lab):
    """Three clean runs of 100 MB/s (with a little run-to-run movement) stored as the baseline."""
    for speed in (100.0, 97.0, 103.0):
        result, _, _ = _run(lab, [speed], "--update-baseline")
        result.assert_outcomes(passed=1)
    return lab


def test_a_clean_run_is_measured_once(baseline):
    result, results, attempts = _run(baseline, [99.0], "--baseline")
    result.assert_outcomes(passed=1)
    assert attempts == 1 and results[0]["verdict"] == "PASS"
    assert results[0]["baseline"]["baseline_runs"] == 3 and results[0]["baseline"]["first_attempt"] is None


def test_a_slowdown_seen_twice_is_a_confirmed_regression(baseline):
    result, results, attempts = _run(baseline, [60.0], "--baseline")
    result.assert_outcomes(failed=1)
    assert attempts == 2, "the suspicion was re-measured"
    assert len(results) == 1, "only the confirming attempt is reported"
    comparison = results[0]["baseline"]
    assert results[0]["verdict"] == "REGRESSION" and comparison["regression"]
    assert "confirmed after a power cycle" in comparison["reason"]
    assert comparison["first_attempt"]["median"] == pytest.approx(60.0, rel=0.02)
    result.stdout.fnmatch_lines(["*REGRESSION*"])


def test_a_slowdown_that_goes_away_after_the_power_cycle_is_not_called(baseline):
    result, results, attempts = _run(baseline, [60.0, 100.0], "--baseline")
    result.assert_outcomes(passed=1)
    assert attempts == 2 and results[0]["verdict"] == "PASS"
    comparison = results[0]["baseline"]
    assert not comparison["regression"] and comparison["reason"].startswith("suspected regression not confirmed")
    assert comparison["first_attempt"]["median"] == pytest.approx(60.0, rel=0.02)


def test_no_confirm_calls_it_on_the_first_attempt(baseline):
    result, results, attempts = _run(baseline, [60.0, 100.0], "--baseline", "--no-confirm")
    result.assert_outcomes(failed=1)
    assert attempts == 1 and results[0]["verdict"] == "REGRESSION"
