"""The XMODEM receive command hil sends a board, run with this PC's own lrzsz `rz` on a pipe: the file must
arrive whole in hil's directory (Debian's lrzsz 0.12.21-10+deb12u1 refuses a name with a directory in it,
"rz: Security Violation", which labgrid's ShellDriver.put gives it)."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from hil.errors import LabError
from hil.lab.board.console_transfer import receive_command
from hil.vlab.tool_checks import send_over_pipes


@pytest.mark.parametrize("keep_busy", [False, True], ids=["real-clock", "virtual-clock"])
def test_this_pcs_rz_receives_what_hil_sends_into_hils_directory(tmp_path: Path, keep_busy: bool):
    assert shutil.which("rz"), "lrzsz's rz is one of hil's Debian packages (scripts/setup.sh)"
    directory = tmp_path / "var/lib/hil/programs"
    directory.mkdir(parents=True)
    data = os.urandom(100 * 1024 + 17)  # not a multiple of XMODEM-1K's blocks
    command = receive_command("rz", str(directory), ".bundle.xmodem", keep_busy=keep_busy)
    sent, status = send_over_pipes(command, data)
    errors = (directory / ".bundle.xmodem.err").read_text()
    assert sent and status == 0, f"rz refused (exit {status}): {errors}"
    received = (directory / ".bundle.xmodem").read_bytes()
    assert len(received) >= len(data) and received[len(data) :].strip(b"\x1a") == b""  # CPMEOF padding only
    assert hashlib.sha256(received[: len(data)]).hexdigest() == hashlib.sha256(data).hexdigest()


def test_the_receive_command_quotes_the_directory_and_refuses_an_unknown_receiver():
    command = receive_command("lrz", "/var/lib/hil/it's here", ".b.xmodem")
    assert command == "(cd '/var/lib/hil/it'\"'\"'s here' && exec lrz -X -y -c -b .b.xmodem 2>.b.xmodem.err)"
    busy = receive_command("lrz", "/tmp", ".b.xmodem", keep_busy=True)  # the busy loop ends with the receiver
    assert busy.startswith("((while :; do :; done) & hil_busy=$!; (cd /tmp && exec lrz ")
    assert busy.endswith(" 2>.b.xmodem.err); kill $hil_busy)")
    with pytest.raises(LabError, match="no XMODEM receiver named 'sz'"):
        receive_command("sz", "/tmp", "x")
