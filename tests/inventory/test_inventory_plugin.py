"""End to end through pytest: a bad inventory stops the run as a usage error before any board is touched."""

from __future__ import annotations

import pytest

TEST_FILE = """
def test_needs_a_pair(pair):
    pass
"""


@pytest.fixture
def run(pytester, monkeypatch, tmp_path):
    # The env's !template values resolve once a target is instantiated; point them somewhere harmless.
    monkeypatch.setenv("LG_HIL_VLAB_IMAGE", str(tmp_path / "no-image"))
    pytester.makepyfile(test_pair=TEST_FILE)

    def run(boards) -> pytest.RunResult:
        # In a subprocess: labgrid's plugin refuses a second session in one process.
        return pytester.runpytest_subprocess(
            "--boards", str(boards), "-p", "no:cacheprovider", f"--hil-reports={pytester.path / 'reports'}"
        )

    return run


def test_a_bad_inventory_is_a_usage_error_naming_file_line_and_key(run, write_boards, boards_yaml, missing_qemu):
    text = boards_yaml.replace("        min: 8\n", "        min: 8\n        max_vc: 5%\n")
    line = text.splitlines().index("        max_vc: 5%") + 1
    bad = write_boards(text, "bad.yaml")
    result = run(bad)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: invalid board inventory: {bad}: line {line}: pairs/vpair/metrics/usb.msc.read/max_vc: unknown key*"]
    )
    output = result.stdout.str() + result.stderr.str()
    assert "test_needs_a_pair" not in output  # nothing was collected, let alone run
    assert missing_qemu not in output  # the board's environment was never instantiated


def test_control_the_same_env_with_a_valid_inventory_does_reach_the_board(run, write_boards, boards_yaml, missing_qemu):
    """Without this, 'the QEMU path is not mentioned' above would prove nothing."""
    result = run(write_boards(boards_yaml, "good.yaml"))
    result.assert_outcomes(errors=1)
    assert missing_qemu in result.stdout.str()
