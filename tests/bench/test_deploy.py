"""hil deploys its programs on the rehearsal board as on a real one: built for arm64 with the cross compiler,
copied over SSH (or XMODEM over the console of the board without network), checked with sha256sum there,
kept across power cycles on the board's SD card, refused when they cannot run."""

from __future__ import annotations

import time

import pytest

from hil import programs
from hil.errors import LabError
from hil.facts import Facts
from hil.lab.board import deploy, shell

from .conftest import role

pytestmark = pytest.mark.timeout(900)


def _forget(board) -> None:
    board.run(shell.cmd("rm", "-rf", deploy.DEPLOY_ROOT))
    board.deployment = None


def test_cold_over_ssh_then_warm_and_kept_across_a_power_cycle(rehearsal_env):
    board = role(rehearsal_env(), "rboard")
    board.ensure_ready()
    _forget(board)
    cold = deploy.ensure(board)
    assert cold.copied and cold.via.startswith("SSHDriver") and cold.arch == "aarch64"
    assert cold.digest == programs.build("aarch64").digest
    # On the PATH of the role's shell, and the SSH driver is no longer the active command driver.
    assert board.run("command -v v4l2_fps").strip() == f"{cold.bin_dir}/v4l2_fps"
    assert type(board.command_driver()).__name__ == "ShellDriver"
    assert deploy.ensure(board) is cold  # same boot: nothing asked again
    board.mark_suspect("rehearsal: power-cycle to see the programs survive on the card")
    board.ensure_ready()
    warm = deploy.ensure(board)
    assert not warm.copied and warm.via == "already on the board" and warm.sha256 == cold.sha256
    assert board.run("command -v hid_throughput").strip() == f"{warm.bin_dir}/hid_throughput"
    print(f"deploy over SSH: cold {cold.seconds:.1f} s, warm {warm.seconds:.1f} s")  # the closing note's figures


def test_over_the_serial_console_of_a_board_without_network(rehearsal_env):
    board = role(rehearsal_env(), "rboard-serial")
    board.ensure_ready()
    _forget(board)
    started = time.monotonic()
    done = deploy.ensure(board)
    assert done.copied and done.via.startswith("ShellDriver (XMODEM")
    assert time.monotonic() - started < 300
    print(f"deploy over XMODEM: {done.seconds:.1f} s")


def test_a_damaged_program_on_the_board_is_copied_again(rehearsal_env):
    board = role(rehearsal_env(), "rboard")
    board.ensure_ready()
    first = deploy.ensure(board)
    board.run(f"echo garbage >> {shell.quote(first.bin_dir + '/uvc_source')}")
    board.deployment = None
    again = deploy.ensure(board)
    assert again.copied, "a program whose sha256 changed on the board is deployed again"


def test_a_full_board_filesystem_is_an_error_naming_the_space(rehearsal_env):
    board = role(rehearsal_env(), "rboard")
    board.ensure_ready()
    board.run(shell.cmd("mkdir", "-p", "/var/lib/hil"))
    board.run("mount -t tmpfs -o size=128k hil-full /var/lib/hil")
    try:
        board.deployment = None
        with pytest.raises(LabError, match=r"no room for hil's programs in /var/lib/hil: \d+ KiB needed, \d+ KiB free"):
            deploy.ensure(board)
    finally:
        board.run("umount /var/lib/hil")


def test_programs_of_another_architecture_are_refused_by_the_board(rehearsal_env):
    board = role(rehearsal_env(), "rboard")
    board.ensure_ready()
    directory = f"{deploy.DEPLOY_ROOT}/wrong-arch"
    deploy._transfer(board, deploy._bundle(programs.build("x86_64")), directory)
    try:
        with pytest.raises(LabError, match="built for x86_64 does not run there"):
            deploy._check_runs(board, directory, "x86_64")
    finally:
        board.run(shell.cmd("rm", "-rf", directory))


def test_a_tool_the_board_lacks_is_one_error_naming_all_of_them(rehearsal_env):
    board = role(rehearsal_env(), "rboard")
    board.ensure_ready()
    deploy.ensure(board)
    facts = Facts()
    deploy.require_tools("rehearsal", {"rc": board}, {"rc": ["fio", "v4l2_fps"]}, facts)  # Debian's fio, hil's v4l2_fps
    assert facts.board(board.target.name).programs.startswith("hil programs ")
    with pytest.raises(LabError, match=r"rehearsal: tools missing.* lacks v4l2-ctl, mtp-getfile"):
        deploy.require_tools("rehearsal", {"rc": board}, {"rc": ["fio", "v4l2-ctl", "mtp-getfile"]}, facts)
