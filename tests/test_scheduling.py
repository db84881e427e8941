"""Per-board scheduling under pytest-xdist: pairs that share a board run on one worker, whatever `-n` says."""

from __future__ import annotations

import json

import pytest

ENV = """\
targets:
  rk3399-evb: {drivers: {LocalShellDriver: {}}}
  rk3568-evb: {drivers: {LocalShellDriver: {}}}
  lab-pc: {drivers: {LocalShellDriver: {}}}
imports:
  - hil.lab.board.local
"""


def _pair(name: str, device: str) -> str:
    return f"""\
  {name}:
    env: lab.yaml
    roles: {{host: {{target: lab-pc}}, device: {{target: {device}}}}}
    link: {{type: usb, speed: high, udc: fe800000.dwc3}}
    metrics:
      usb.msc.read: {{unit: MB/s, min: 10}}
"""


BOARDS = "pairs:\n" + _pair("evb-hs", "rk3399-evb") + _pair("evb-ss", "rk3399-evb") + _pair("other", "rk3568-evb")

# The board_pair fixture is replaced: this is about where tests run, not about the boards.
CONFTEST = """
import pytest

@pytest.fixture(scope="session")
def board_pair(request):
    return request.param
"""

TESTS = """
import json, os, time
import pytest

@pytest.mark.hil_metrics("usb.msc.read")
@pytest.mark.parametrize("n", range(4))
def test_where(board_pair, n):
    time.sleep(0.2)
    with open("where.jsonl", "a") as out:
        out.write(json.dumps([board_pair, os.environ.get("PYTEST_XDIST_WORKER", "main")]) + "\\n")
"""


@pytest.fixture
def lab(pytester):
    pytester.makefile(".yaml", lab=ENV, boards=BOARDS)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_where=TESTS)
    return pytester


def _workers(lab) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {}
    for line in (lab.path / "where.jsonl").read_text().splitlines():
        pair, worker = json.loads(line)
        seen.setdefault(pair, set()).add(worker)
    return seen


@pytest.mark.parametrize("dist", [[], ["--dist", "load"], ["--dist", "loadscope"], ["--dist", "worksteal"]])
def test_pairs_sharing_a_board_stay_on_one_worker(lab, dist):
    result = lab.runpytest_subprocess("-p", "xdist", "-n", "3", *dist, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=12)
    seen = _workers(lab)
    assert set(seen) == {"evb-hs", "evb-ss", "other"}
    assert all(len(workers) == 1 for workers in seen.values()), seen
    assert seen["evb-hs"] == seen["evb-ss"], "two pairs on the same board ran on different workers"


def test_dist_each_is_refused(lab):
    result = lab.runpytest_subprocess("-p", "xdist", "-n", "2", "--dist", "each", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dist each would send every worker to every board*"])


LOSE_GROUPS = """
import pytest

@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    # What pytest 9.2 does to pytest-xdist 3.8 (pytest-xdist#1386): the group suffix never reaches the node id.
    for item in items:
        item._nodeid = item._nodeid.split("@")[0]
"""


def test_a_worker_that_lost_the_board_groups_refuses_to_run(lab):
    (lab.path / "conftest.py").write_text(CONFTEST + LOSE_GROUPS)
    result = lab.runpytest_subprocess("-p", "xdist", "-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=12)
    assert not (lab.path / "where.jsonl").exists(), "no test may run on a shared board"
    result.stdout.fnmatch_lines(["*pytest-xdist did not apply the per-board groups*pytest-xdist#1386*"])
