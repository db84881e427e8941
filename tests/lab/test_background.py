"""Background commands on the lab PC role (LocalShellDriver): readiness, output, exit status, teardown.

The virtual board's console runs the same code (tests/vlab/test_background_vlab.py adds the hang and the
power cycle).
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from hil.lab.board import shell
from hil.lab.board.background import BackgroundError


def _stat(pid: int) -> list[str] | None:
    """/proc/<pid>/stat after the command name: state is [0], pgrp [2], start time [19]."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


# A process is (pid, start time): pid_max may be small (32768 here), and a busy machine reuses pids fast.
def _alive(process: tuple[int, str]) -> bool:
    """Still running or stopped; a zombie, a process that is gone, or a new one with its pid does not count."""
    stat = _stat(process[0])
    return stat is not None and stat[19] == process[1] and stat[0] not in ("Z", "X")


def _all_gone(processes: list[tuple[int, str]], within_s: float = 3.0) -> bool:
    """SIGKILL is delivered at once, but a process exits when it is next scheduled: on a loaded machine
    that can be a moment after `stop()` returned."""
    deadline = time.monotonic() + within_s
    while any(_alive(p) for p in processes):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _pids_of_group(directory: str) -> list[tuple[int, str]]:
    pgid = Path(directory, "pgid").read_text().strip()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[2] == pgid:
                found.append((int(entry.name), stat[19]))
    return found


def test_ready_output_and_exit_status_are_collected(role):
    script = "echo starting; sleep 0.3; echo listening on 5201; sleep 30"
    with role.background(shell.cmd("sh", "-c", script), ready=r"listening on [0-9]+") as server:
        assert server.running
        pids = _pids_of_group(server.directory)
        assert pids, "the command's process group is running"
    assert not server.running
    assert "starting" in server.output and "listening on 5201" in server.output
    assert server.exit_status == 128 + signal.SIGTERM  # stopped by TERM, as the wrapper saw it
    assert _all_gone(pids)
    assert not Path(server.directory).exists(), "its files on the role are removed"


def test_a_command_that_ends_on_its_own_keeps_its_real_exit_status(role):
    with role.background(shell.cmd("sh", "-c", "echo done; exit 7")) as job:
        deadline = time.monotonic() + 10
        while not Path(job.directory, "status").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    assert job.exit_status == 7 and job.output.strip() == "done"


def test_a_command_that_failed_leaves_its_last_lines_in_the_log_and_a_stopped_one_does_not(role, caplog):
    with role.background(shell.cmd("sh", "-c", "echo the camera went away; exit 1")) as job:
        deadline = time.monotonic() + 10
        while not Path(job.directory, "status").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("exit status 1" in w and "the camera went away" in w for w in warnings), warnings
    caplog.clear()
    with role.background(shell.cmd("sh", "-c", "echo up; sleep 30"), ready="up"):
        pass  # stopped by TERM: exit status 143, as the test meant
    # A command that handles TERM and exits 1 (as iperf3 -s does) was stopped too, not failed.
    handles_term = "trap 'echo interrupted; exit 1' TERM; echo up; while :; do sleep 0.1; done"
    with role.background(shell.cmd("sh", "-c", handles_term), ready="up") as job:
        pass
    assert job.exit_status == 1 and "interrupted" in job.output
    assert not [r for r in caplog.records if r.levelname == "WARNING"]


def test_a_ready_command_is_an_alternative_to_a_pattern(role, tmp_path):
    flag = tmp_path / "ready"
    command = shell.cmd("sh", "-c", f"sleep 0.3; touch {flag}; sleep 30")
    with role.background(command, ready_command=shell.cmd("test", "-e", str(flag))) as job:
        assert flag.exists()
    assert job.exit_status is not None


def test_a_command_that_never_gets_ready_is_stopped_and_named_with_its_output(role):
    started = time.monotonic()
    command = shell.cmd("sh", "-c", "echo warming up; sleep 60")
    with pytest.raises(BackgroundError) as info, role.background(command, ready="never", ready_timeout_s=1):
        pytest.fail("the body must not run")
    assert time.monotonic() - started < 15
    message = str(info.value)
    assert "not ready within 1 s" in message and "warming up" in message
    assert role.backgrounds == []


def test_a_command_that_exits_before_it_is_ready_is_an_error_with_its_output(role):
    command = shell.cmd("sh", "-c", "echo no such port >&2; exit 1")
    with (
        pytest.raises(BackgroundError, match="exited before it was ready") as info,
        role.background(command, ready="listening"),
    ):
        pass
    assert "no such port" in str(info.value)


def test_a_failing_test_body_still_stops_everything_and_keeps_its_own_exception(role):
    command = shell.cmd("sh", "-c", "sleep 60 & sleep 60; wait")
    with pytest.raises(ZeroDivisionError), role.background(command, ready=None) as job:
        pids = _pids_of_group(job.directory)
        assert len(pids) >= 3  # wrapper, subshell and both sleeps
        1 / 0  # noqa: B018 - the test's own failure
    assert _all_gone(pids)


def test_a_command_ignoring_term_is_killed_after_the_grace_period(role):
    stubborn = shell.cmd("sh", "-c", "trap '' TERM; echo up; while :; do sleep 0.1; done")
    with role.background(stubborn, ready="up", stop_timeout_s=0.5) as job:
        pids = _pids_of_group(job.directory)
    assert _all_gone(pids)


def test_stop_backgrounds_ends_what_a_test_left_running(role):
    job = role.background(shell.cmd("sleep", "60"))
    job.start()
    pids = _pids_of_group(job.directory)
    role.stop_backgrounds()
    assert role.backgrounds == [] and not job.running
    assert _all_gone(pids)


def test_wait_lets_a_command_finish_on_its_own(role):
    # Stopping it at once would TERM it mid-way: wait gives it its bound to end and keeps its own status.
    with role.background(shell.cmd("sh", "-c", "sleep 0.5; echo done; exit 7")) as job:
        job.wait(timeout_s=10)
        assert not job.running
    assert (job.exit_status, job.output.strip()) == (7, "done")


def test_wait_stops_a_command_that_outlives_its_bound(role):
    with role.background(shell.cmd("sleep", "30")) as job:
        started = time.monotonic()
        job.wait(timeout_s=0.5)
        assert time.monotonic() - started < 15
    assert job.exit_status not in (None, 0)
