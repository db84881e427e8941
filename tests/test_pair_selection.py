"""A pair narrows the matrix in boards.yaml: `matrix: full` keeps it out of quick runs unless --board names it,
`only` keeps just the listed values of a parameter on it, `quick_only` does so in quick runs only
(hil.parametrization). Collected for real by pytest."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from pc_lab import PC_ENV

from hil import parametrization

TESTS = """
import pytest
import hil

pytestmark = pytest.mark.hil_metrics("usb.msc.read")


@hil.matrix("bs", quick=["64K", "1M"], full=["4K", "64K", "1M"], ids="bs={}")
@pytest.mark.parametrize("direction", ["read", "write"])
def test_msc(pair, bs, direction):
    pass


@hil.matrix("report", quick=[1024], full=[512, 1024], ids="report={}")
def test_hid(pair, report):
    pass
"""

PAIRS = """\
pairs:
  everything:
    env: lab.yaml
    roles: {host: {target: lab-pc}, device: {target: lab-pc}}
    link: {type: usb, speed: high, udc: none.0, emulated: true}
    metrics: {usb.msc.read: {unit: MB/s, min: 1, max: 100000}}
  narrowed:
    env: lab.yaml
    only: {bs: [1M], report: [512]}
    roles: {host: {target: lab-pc}, device: {target: lab-pc}}
    link: {type: usb, speed: high, udc: none.0, emulated: true}
    metrics: {usb.msc.read: {unit: MB/s, min: 1, max: 100000}}
  halved:
    env: lab.yaml
    quick_only: {direction: [write]}
    roles: {host: {target: lab-pc}, device: {target: lab-pc}}
    link: {type: usb, speed: high, udc: none.0, emulated: true}
    metrics: {usb.msc.read: {unit: MB/s, min: 1, max: 100000}}
  slow:
    env: lab.yaml
    matrix: full
    roles: {host: {target: lab-pc}, device: {target: lab-pc}}
    link: {type: usb, speed: high, udc: none.0, emulated: true}
    metrics: {usb.msc.read: {unit: MB/s, min: 1, max: 100000}}
"""


@pytest.fixture
def collect(pytester):
    pytester.makepyfile(test_cases=TESTS)
    (pytester.path / "lab.yaml").write_text(PC_ENV)
    (pytester.path / "boards.yaml").write_text(PAIRS)

    def collect(*args: str) -> dict[str, list[str]]:
        result = pytester.runpytest_subprocess(
            "--collect-only", "-q", "-p", "no:cacheprovider", f"--hil-reports={pytester.path / 'reports'}", *args
        )
        assert result.ret == 0, result.stdout.str() + result.stderr.str()
        ids: dict[str, list[str]] = {}
        for line in result.stdout.lines:
            if "::test_" in line:
                params = line.partition("[")[2]
                for pair in ("everything", "narrowed", "halved", "slow"):
                    if f"-{pair}" in params or params.startswith(f"{pair}"):
                        ids.setdefault(pair, []).append(line.split("::")[1])
        return ids

    return collect


def test_a_quick_run_leaves_out_the_full_matrix_pair_and_only_narrows_its_pair(collect):
    ids = collect()
    assert "slow" not in ids
    assert len(ids["everything"]) == 5  # 2 bs x 2 directions + 1 report
    # bs: only 1M of 64K/1M; report: 512 is not in the quick set, so no HID case at all
    assert sorted(ids["narrowed"]) == ["test_msc[bs=1M-narrowed-read]", "test_msc[bs=1M-narrowed-write]"]
    # quick_only: the write cases of both quick block sizes; a test without `direction` keeps its cases
    assert sorted(ids["halved"]) == [
        "test_hid[report=1024-halved]",
        "test_msc[bs=1M-halved-write]",
        "test_msc[bs=64K-halved-write]",
    ]


def test_the_full_matrix_runs_the_full_matrix_pair_and_only_still_narrows(collect):
    ids = collect("--matrix=full")
    assert len(ids["slow"]) == len(ids["everything"]) == len(ids["halved"]) == 8  # 3 bs x 2 directions + 2 reports
    assert sorted(ids["narrowed"]) == [
        "test_hid[report=512-narrowed]",
        "test_msc[bs=1M-narrowed-read]",
        "test_msc[bs=1M-narrowed-write]",
    ]


def test_naming_the_full_matrix_pair_runs_it_in_a_quick_run(collect):
    ids = collect("--board=slow")
    assert list(ids) == ["slow"] and len(ids["slow"]) == 5


@pytest.mark.parametrize(
    ("params", "kept"),
    [
        ({"bs": "1M", "direction": "read"}, True),
        ({"bs": "64K", "direction": "read"}, False),
        ({"report": 512}, True),  # boards.yaml's 512 and the test's 512 compare as text
        ({"report": 1024}, False),
        ({"function": "ecm"}, True),  # a parameter `only` does not name keeps all its values
    ],
)
def test_runs_on_pair(params, kept):
    assert parametrization.runs_on_pair(params, {"bs": ["1M"], "report": [512]}) is kept


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        # A typo in a value or a name deselected the pair's cases without a word (issue "numbers that cannot lie").
        (
            ("only: {bs: [1M], report: [512]}", "only: {bs: [1m], report: [512]}"),
            "pairs/narrowed/only: bs: '1m' is no value",
        ),
        (("quick_only: {direction: [write]}", "quick_only: {direction: [wirte]}"), "quick_only: direction: 'wirte'"),
        (("quick_only: {direction: [write]}", "quick_only: {drection: [write]}"), "'drection' is no parameter"),
    ],
)
def test_a_selection_no_case_has_is_an_error_naming_pair_key_and_value(pytester, collect, edit, problem):
    (pytester.path / "boards.yaml").write_text(PAIRS.replace(*edit))
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "boards.yaml" in result.stderr.str() and problem in result.stderr.str()


def test_a_value_of_the_full_matrix_is_no_typo_in_a_quick_run(pytester, collect):
    # `report: [512]` is in the full matrix only: a quick run collects no such case, and must not object
    # (collect() asserts the run's exit status 0).
    assert not [case for case in collect()["narrowed"] if "test_hid" in case]


def test_a_run_of_one_file_accepts_values_of_the_cases_it_left_out_but_not_a_list_with_none_of_its_own(
    pytester, collect
):
    # `direction: [write, out]`: write is test_cases.py's MSC, out another file's HID; [wirte, out] has none.
    (pytester.path / "boards.yaml").write_text(PAIRS.replace("{direction: [write]}", "{direction: [write, out]}"))
    assert pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider", "test_cases.py").ret == 0
    (pytester.path / "boards.yaml").write_text(PAIRS.replace("{direction: [write]}", "{direction: [wirte, out]}"))
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider", "test_cases.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "direction: 'wirte' is no value" in result.stderr.str()


def test_a_run_of_one_file_checks_values_but_not_names_it_did_not_collect(pytester, collect):
    other = "pytestmark = __import__('pytest').mark.hil_metrics('usb.msc.read')\n\ndef test_other(pair):\n    pass\n"
    pytester.makepyfile(test_other=other)
    (pytester.path / "boards.yaml").write_text(PAIRS.replace("{direction: [write]}", "{direction: [write], size: [1]}"))
    assert pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider", "test_cases.py").ret == 0
    whole = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider")
    assert whole.ret == pytest.ExitCode.USAGE_ERROR and "'size' is no parameter" in whole.stderr.str()


def test_a_case_no_pair_of_the_run_measures_is_skipped_saying_why(pytester, collect):
    # usb.msc.write: no pair of PAIRS measures it; pytest's empty parameter set would skip it as "NOTSET".
    other = "pytestmark = __import__('pytest').mark.hil_metrics('usb.msc.write')\n\ndef test_other(pair):\n    pass\n"
    pytester.makepyfile(test_other=other)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rs", "test_other.py")
    assert result.ret == 0 and "NOTSET" not in result.stdout.str(), result.stdout.str()
    assert "no pair of boards.yaml in this run measures usb.msc.write" in result.stdout.str()
    # A full-matrix pair a glob names is not named: the quick run leaves it out and says so.
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rs", "--board=sl*", "test_cases.py")
    assert result.ret == 0 and "(slow: the full matrix only, --matrix full)" in result.stdout.str(), result.stdout.str()


REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def stock_inventory(tmp_path):
    """hil's boards.yaml beside a run of the whole stock suite (testcases/), the vlab env as shipped with hil."""

    def collect(*edit: str) -> pytest.RunResult:
        text = (REPO / "boards.yaml").read_text().replace("env: hil/vlab/env.yaml", "env: hil:vlab/env.yaml")
        assert not edit or text.count(edit[0]) >= 1
        (tmp_path / "boards.yaml").write_text(text.replace(*edit, 1) if edit else text)
        args = [str(REPO / "testcases"), f"--boards={tmp_path / 'boards.yaml'}", "--collect-only", "-q"]
        run = subprocess.run(
            [sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider", f"--hil-reports={tmp_path / 'r'}"],
            cwd=REPO, capture_output=True, text=True, check=False,
        )  # fmt: skip
        return run

    return collect


def test_a_band_selector_no_stock_case_has_is_an_error_naming_file_line_key_and_values(stock_inventory):
    assert stock_inventory().returncode == 0  # hil's own inventory: every selector matches a case
    line = "          bs=64K: {min: 17, max: 125}"  # vlab-hs's usb.msc.read at 64K
    typo = stock_inventory(line, line.replace("bs=64K", "bs=64k"))
    assert typo.returncode == pytest.ExitCode.USAGE_ERROR
    at = (REPO / "boards.yaml").read_text().splitlines().index(line) + 1
    key = "pairs/vlab-hs/metrics/usb.msc.read/params/bs=64k"
    said = rf"line {at}: {key}: bs: '64k' is no value of it \(values: .*64K\)"
    assert re.search(said, typo.stderr), typo.stderr
    name = stock_inventory(line, line.replace("bs=64K", "'bs=64K,direcion=read'"))
    assert "params/bs=64K,direcion=read: 'direcion' is no parameter of its cases" in name.stderr
    # the clock is the result key's, not a case's: a selector may name it
    assert stock_inventory(line, line.replace("bs=64K", "'bs=64K,clock=virtual'")).returncode == 0


def test_a_band_selector_is_not_checked_against_a_lab_s_own_cases_or_a_part_of_the_suite(pytester, collect):
    # the pair's cases here are a lab's own (test_cases.py): a selector for a stock case's value is no typo
    selector = "max: 100000, params: {bs=512K: {min: 2}}}}\n  narrowed"
    (pytester.path / "boards.yaml").write_text(PAIRS.replace("max: 100000}}\n  narrowed", selector, 1))
    assert collect()["everything"]
