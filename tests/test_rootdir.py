"""`--boards PATH` and `--boards=PATH` give the same rootdir, ini file and tests (hil.rootdir)."""

from __future__ import annotations

import pytest
from pc_lab import PC_ENV, PC_PAIR

ENV, BOARDS = PC_ENV, PC_PAIR
SUITE_TEST = """
import pytest

@pytest.mark.hil_metrics("usb.msc.read")
def test_suite_case(board_pair):
    pass
"""


@pytest.fixture
def project(pytester, tmp_path_factory):
    """A repository: pytest.ini with testpaths and addopts, the suite, framework tests it must not collect,
    and an inventory kept in another directory."""
    pytester.makeini("[pytest]\ntestpaths = suite\naddopts = -p no:cacheprovider --hil-marker-from-ini\n")
    pytester.mkdir("suite")
    (pytester.path / "suite" / "test_suite.py").write_text(SUITE_TEST)
    (pytester.path / "suite" / "conftest.py").write_text(
        "import pytest\n\n@pytest.fixture(scope='session')\ndef board_pair(request):\n    return request.param\n"
    )
    pytester.makepyfile(test_framework_own="def test_framework(): pass")
    inventory = tmp_path_factory.mktemp("elsewhere")  # outside the repository, as a lab's shared inventory
    (inventory / "lab.yaml").write_text(ENV)
    (inventory / "boards.yaml").write_text(BOARDS)
    (pytester.path / "conftest.py").write_text(
        "def pytest_addoption(parser):\n    parser.addoption('--hil-marker-from-ini', action='store_true')\n"
    )
    pytester.inventory = inventory
    return pytester


@pytest.mark.parametrize("form", ["space", "equals"])
def test_the_boards_option_leaves_rootdir_ini_and_testpaths_alone(project, form):
    path = str(project.inventory / "boards.yaml")
    args = ["--boards", path] if form == "space" else [f"--boards={path}"]
    result = project.runpytest_subprocess(*args, "--collect-only", "-q")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["suite/test_suite.py::test_suite_case[[]pc-pair[]]", "1 test collected*"])
    assert "test_framework_own" not in result.stdout.str()
    verbose = project.runpytest_subprocess(*args, "--collect-only")
    verbose.stdout.fnmatch_lines([f"rootdir: {project.path}", "configfile: tox.ini"])
