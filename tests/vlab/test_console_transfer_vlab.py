"""A file through the virtual board's serial console, as hil deploys its programs on a board without network:
XMODEM-1K to the board's own rz, and, when the receiver refuses, base64 through the shell, named as such."""

from __future__ import annotations

import hashlib
import os

import pytest

from hil.lab.board import console_transfer, shell


def _sha256_on(board, path: str) -> str:
    return board.run(shell.cmd("sha256sum", path)).split()[0]


def test_a_file_goes_to_the_boards_rz_and_arrives_whole(vboard):
    data = os.urandom(200 * 1024 + 17)
    vboard.run(shell.cmd("mkdir", "-p", "/var/lib/hil/transfer"))
    via = console_transfer.put(vboard, data, "/var/lib/hil/transfer/payload")
    assert via == "ShellDriver (XMODEM-1K to rz over the serial console)"
    assert _sha256_on(vboard, "/var/lib/hil/transfer/payload") == hashlib.sha256(data).hexdigest()
    assert vboard.run("ls -A /var/lib/hil/transfer").split() == ["payload"]  # nothing staged left behind


@pytest.fixture
def board_rz(vboard):
    """The board's rz moved aside (the board's root is its initramfs in memory: a power cycle restores it);
    the test puts its own receiver there or none, and the real one goes back after."""
    vboard.run("mv /usr/bin/rz /usr/bin/rz.real")
    yield vboard
    vboard.run("mv -f /usr/bin/rz.real /usr/bin/rz")


def test_a_receiver_that_refuses_is_named_and_the_file_goes_through_the_shell(board_rz):
    # as lrzsz's security update answers a name with a directory in it: a message, two CANs, exit 128
    script = "#!/bin/sh\necho 'rz: Security Violation' >&2\nprintf '\\030\\030'\nexit 128\n"
    board_rz.run(f"printf %s {shell.quote(script)} > /usr/bin/rz && chmod +x /usr/bin/rz")
    data = os.urandom(12 * 1024 + 3)  # several command lines of base64
    via = console_transfer.put(board_rz, data, "/tmp/payload")
    assert via.startswith("ShellDriver (base64 through the shell over the serial console, SHA-256 checked: ")
    assert "rz refused the XMODEM-1K transfer of 12291 bytes (rz: Security Violation)" in via
    assert _sha256_on(board_rz, "/tmp/payload") == hashlib.sha256(data).hexdigest()


def test_a_board_without_a_receiver_gets_the_file_through_the_shell(board_rz):
    assert board_rz.run("command -v lrz rz rx || true").strip() == ""  # Debian's busybox has no rx applet
    data = os.urandom(10 * 1024 + 5)
    via = console_transfer.put(board_rz, data, "/tmp/payload")
    assert via.endswith(": the board has no XMODEM receiver (lrz, rz or rx))")
    assert _sha256_on(board_rz, "/tmp/payload") == hashlib.sha256(data).hexdigest()
