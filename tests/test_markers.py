"""The `lab`, `slow` and `unit` markers of tests/conftest.py: every test has one of them, and what the lists name exists
(a folder renamed or a fixture gone would silently move lab tests into `bash scripts/test.sh --quick`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import LAB_FIXTURES, LAB_PARAMS, LAB_PATHS, SLOW_PATHS, TESTS, is_lab, kind


def test_every_collected_test_is_lab_slow_or_unit(request: pytest.FixtureRequest) -> None:
    for item in request.session.items:
        marked = [name for name in ("lab", "slow", "unit") if item.get_closest_marker(name) is not None]
        assert marked == [kind(item)], f"{item.nodeid}: {marked}"


def test_every_lab_path_and_fixture_exists() -> None:
    for path in LAB_PATHS + SLOW_PATHS:
        assert (TESTS / path).is_dir() if path.endswith("/") else (TESTS / path).is_file(), f"tests/{path}"
    defined = {
        name
        for conftest in TESTS.rglob("conftest.py")
        for name in re.findall(r"^def (\w+)\(", conftest.read_text(encoding="utf-8"), re.M)
    }
    assert LAB_FIXTURES | set(LAB_PARAMS) <= defined, sorted((LAB_FIXTURES | set(LAB_PARAMS)) - defined)


def test_this_test_is_unit(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("unit") is not None
    assert not is_lab(request.node) and kind(request.node) == "unit"
    assert Path(__file__).resolve().parent == TESTS
