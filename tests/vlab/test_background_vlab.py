"""Background commands on the virtual board's serial console, including a board that hangs under them."""

from __future__ import annotations

import secrets

import pytest

from hil.errors import BoardTimeout
from hil.lab.board import shell


def _processes_with(vboard, marker: str) -> list[str]:
    listing = vboard.run("ps -o pid,args 2>/dev/null || ps", timeout=30)
    return [line for line in listing.splitlines() if marker in line and "ps -o" not in line]


def test_a_responder_on_the_console_is_ready_stopped_and_collected(vboard):
    marker = f"hil-bg-{secrets.token_hex(3)}"
    script = f"echo {marker} listening; exec sleep 1000"
    with vboard.background(shell.cmd("sh", "-c", script), ready=f"{marker} listening") as job:
        assert any("sleep 1000" in line for line in _processes_with(vboard, "sleep 1000"))
    assert f"{marker} listening" in job.output
    assert job.exit_status == 143  # TERM
    assert _processes_with(vboard, "sleep 1000") == []
    exitcode, _ = vboard.run_status(shell.cmd("test", "-e", job.directory))
    assert exitcode != 0, "its files on the board are removed"


def test_a_process_left_by_a_board_that_hung_is_gone_after_the_power_cycle(vboard):
    cycles = vboard.strategy.power_cycles
    marker = secrets.token_hex(3)
    command = shell.cmd("sh", "-c", f"echo up {marker}; exec sleep 100{int(marker, 16) % 1000}")
    with pytest.raises(BoardTimeout), vboard.background(command, ready=f"up {marker}") as job:
        vboard.target.get_driver("VlabQEMUDriver").pause()  # the board freezes mid-test
        vboard.run("true", timeout=5)
    # The test's own timeout surfaced; cleanup did not try the dead console again, and says why.
    assert job.lost is not None and "stopped answering" in job.lost
    assert job.exit_status is None and not job.running and vboard.backgrounds == []
    vboard.ensure_ready()
    assert vboard.strategy.power_cycles == cycles + 1
    assert _processes_with(vboard, f"sleep 100{int(marker, 16) % 1000}") == []
    assert "hil-bg" not in vboard.run("ls -a /tmp", timeout=30)
