"""--lg-env and LG_ENV, labgrid's own way to name the environment, give every pair its targets."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.errors import InventoryError
from hil.inventory.loader import load_inventory

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REHEARSAL = EXAMPLES / "boards-rehearsal.yaml"
REHEARSAL_ENV = EXAMPLES / "rehearsal-env.yaml"


def test_lg_env_is_every_pairs_environment():
    loaded = load_inventory(REHEARSAL, lg_env=REHEARSAL_ENV)
    assert {board.env_path for board in loaded.boards.values()} == {REHEARSAL_ENV.resolve()}


def test_a_pair_without_env_and_no_lg_env_is_an_error_naming_the_pair():
    with pytest.raises(InventoryError, match=r"pairs/rehearsal-msc/env: no labgrid environment: set `env` or run"):
        load_inventory(REHEARSAL)


def test_lg_env_replaces_a_pairs_own_env_and_its_targets_are_checked_there(tmp_path):
    # The virtual lab's inventory names targets (vboard, lab-pc) the rehearsal environment does not have.
    with pytest.raises(InventoryError, match=r"target 'vboard' is not in rehearsal-env.yaml"):
        load_inventory(EXAMPLES.parent / "boards.yaml", lg_env=REHEARSAL_ENV)


def _collect(pytester: pytest.Pytester, *args: str, env: dict[str, str] | None = None) -> pytest.RunResult:
    pytester.makepyfile(test_pair="def test_needs_a_pair(pair):\n    pass\n")
    pytester._monkeypatch.setenv("LG_HIL_BENCH", str(pytester.path / "bench"))  # the env file's !template
    for name, value in (env or {}).items():
        pytester._monkeypatch.setenv(name, value)
    return pytester.runpytest_subprocess(
        "--collect-only", "-q", "--boards", str(REHEARSAL), "-p", "no:cacheprovider", *args
    )


def test_the_option_and_the_variable_reach_the_inventory(pytester: pytest.Pytester):
    assert _collect(pytester).ret == pytest.ExitCode.USAGE_ERROR  # neither: no environment for the pairs
    assert _collect(pytester, "--lg-env", str(REHEARSAL_ENV)).ret == pytest.ExitCode.OK
    assert _collect(pytester, env={"LG_ENV": str(REHEARSAL_ENV)}).ret == pytest.ExitCode.OK
    missing = _collect(pytester, "--lg-env", str(pytester.path / "nowhere.yaml"))
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["*--lg-env/LG_ENV: labgrid environment *nowhere.yaml does not exist*"])


def test_an_env_file_labgrid_cannot_read_is_a_usage_error_not_a_traceback(pytester: pytest.Pytester):
    pytester._monkeypatch.delenv("LG_HIL_BENCH", raising=False)
    pytester.makepyfile(test_pair="def test_needs_a_pair(pair):\n    pass\n")
    unset = pytester.runpytest_subprocess("--collect-only", "--boards", str(REHEARSAL), "--lg-env", str(REHEARSAL_ENV))
    assert unset.ret == pytest.ExitCode.USAGE_ERROR
    unset.stderr.fnmatch_lines(["*--lg-env/LG_ENV *rehearsal-env.yaml: *unknown variable 'LG_HIL_BENCH'*"])
    bomb = pytester.path / "bomb.yaml"
    bomb.write_text("a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n" for p, c in zip("abcdefghi", "bcdefghij", strict=True)
    ))  # fmt: skip
    refused = pytester.runpytest_subprocess("--collect-only", "--boards", str(REHEARSAL), "--lg-env", str(bomb))
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*bomb.yaml line 1: refused: *nodes once its aliases are expanded*"])
    assert "Traceback" not in unset.stderr.str() + refused.stderr.str()
