"""Role on a real labgrid target whose CommandProtocol is hil's LocalShellDriver (commands on this PC)."""

from __future__ import annotations

import re
import shlex
import subprocess
import time
from pathlib import Path

import pytest
from labgrid import Environment

from hil.errors import BoardTimeout, CommandFailed
from hil.lab.board import shell
from hil.lab.board.local import LocalShellDriver
from hil.lab.board.role import Role
from hil.lab.board.shell import MAX_LINE

STAGED = re.compile(r"/tmp/\.hil-[0-9a-f]{8}\.sh")


@pytest.fixture
def lines_sent(role, monkeypatch) -> list[str]:
    """Every command line the driver receives (the driver still runs each of them)."""
    driver = role.target.get_driver("CommandProtocol")
    sent: list[str] = []
    real_run = driver.run

    def run(cmd, timeout=30.0):
        sent.append(cmd)
        return real_run(cmd, timeout=timeout)

    monkeypatch.setattr(driver, "run", run)
    return sent


def _sh(command: str) -> tuple[int, str]:
    """What /bin/sh itself makes of a command line, for comparison (same stdout-then-stderr joining)."""
    proc = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, timeout=30)
    return proc.returncode, "\n".join([*proc.stdout.splitlines(), *proc.stderr.splitlines()])


def test_the_env_gives_a_local_shell_driver(role):
    assert isinstance(role.target.get_driver("CommandProtocol"), LocalShellDriver)
    assert role.label == "pc-pair/host (lab-pc)"
    assert role.strategy is None
    role.ensure_ready()  # no strategy: nothing to boot, and no error


def test_run_returns_stdout_then_stderr_and_the_exit_code(role):
    assert role.run_status("printf 'out\\n'; printf 'err\\n' >&2; exit 3") == (3, "out\nerr")
    assert role.run("printf 'a\\nb\\n'") == "a\nb"
    assert role.run("exit 2", check=False) == ""


def test_a_failing_command_raises_command_failed_with_its_output(role):
    command = "printf 'partial output\\n'; printf 'why it failed\\n' >&2; exit 5"
    with pytest.raises(CommandFailed) as caught:
        role.run(command)
    error = caught.value
    assert (error.role, error.command, error.exitcode) == (role.label, command, 5)
    assert error.output == "partial output\nwhy it failed"
    assert "why it failed" in str(error)


def _processes_with(token: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:  # the process ended meanwhile
            continue
        if token.encode() in args:
            found.append(b" ".join(args).decode(errors="replace"))
    return found


def test_a_command_past_its_timeout_raises_board_timeout_and_leaves_nothing_running(role):
    token = "31.4159"  # a sleep length nothing else on this machine uses
    started = time.monotonic()
    # dash forks `sleep` here (a command follows): killing only /bin/sh would orphan it.
    with pytest.raises(BoardTimeout, match=re.escape(role.label)) as caught:
        role.run(f"sleep {token}; echo never", timeout=0.5)
    assert time.monotonic() - started < 5
    assert f"sleep {token}" in str(caught.value)
    deadline = time.monotonic() + 2
    while _processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_with(token) == []


def test_a_background_child_is_ended_with_the_command(role):
    token = "27.1828"
    with pytest.raises(BoardTimeout):
        role.run(f"sleep {token} & sleep {token}; wait", timeout=0.5)
    deadline = time.monotonic() + 2
    while _processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_with(token) == []


def test_read_strips_the_trailing_newline_of_a_hostile_path(role, tmp_path):
    path = tmp_path / "it's $(touch injected) here"
    path.write_text("  value with spaces\n")
    assert role.read(str(path)) == "value with spaces"
    assert not (tmp_path / "injected").exists()


HOSTILE = ["it's", 'say "hi"', "$(echo injected)", "`echo injected`", "a;b", "tab\there", "%s"]


def _long_script() -> str:
    script = shell.all_of(shell.cmd("printf", "%s|\\n", f"{i}:{value}") for i in range(12) for value in HOSTILE)
    assert len(script) > 3 * MAX_LINE and script.count("'") > 100
    return script


def _assert_staged_and_removed(lines: list[str]) -> None:
    assert len(lines) > 1, "a long command is staged in pieces"
    assert max(len(line) for line in lines) <= MAX_LINE
    paths = set(STAGED.findall(" ".join(lines)))
    assert len(paths) == 1
    assert not Path(paths.pop()).exists(), "the staged script is removed after it ran"


def test_a_long_script_is_staged_and_runs_as_it_would_directly(role, lines_sent):
    script = _long_script()
    expected = _sh(script)
    assert expected[0] == 0 and "0:$(echo injected)|" in expected[1]
    assert role.run_status(script) == expected
    _assert_staged_and_removed(lines_sent)


def test_a_staged_script_keeps_its_exit_status_and_output(role, lines_sent):
    script = _long_script() + " && printf 'last words\\n' >&2 && exit 7"
    expected = _sh(script)
    assert expected[0] == 7
    assert role.run_status(script) == expected
    _assert_staged_and_removed(lines_sent)


def test_a_script_of_nothing_but_quotes_is_staged_in_lines_that_fit(role, lines_sent):
    # Quoting makes each ' five characters long: cut by raw length, these lines were too long to send
    # and were staged again, without end.
    quotes = "'" * (2 * MAX_LINE)
    assert role.run(shell.cmd("printf", "%s", quotes)) == quotes
    _assert_staged_and_removed(lines_sent)


def test_staging_survives_a_chunk_boundary_inside_a_quoted_value(role, lines_sent):
    value = "x" * (MAX_LINE - 40) + "'$(echo injected)'" + "y" * MAX_LINE
    assert role.run(shell.cmd("printf", "%s", value)) == value
    _assert_staged_and_removed(lines_sent)
    assert shlex.split(lines_sent[0])[:2] == ["printf", "%s"]


TWO_COMMAND_DRIVERS = """\
targets:
  board:
    drivers:
      - LocalShellDriver: {name: bootloader}
      - LocalShellDriver: {name: shell}
imports:
  - hil.lab.board.local
"""


def test_runs_on_the_active_one_of_two_command_drivers(tmp_path, monkeypatch):
    # A U-Boot board: UBootDriver and ShellDriver are both CommandProtocol; booted, only the shell is active.
    path = tmp_path / "env.yaml"
    path.write_text(TWO_COMMAND_DRIVERS)
    env = Environment(config_file=str(path))
    target = env.get_target("board")
    used: list[str] = []
    for name in ("bootloader", "shell"):
        driver = target.get_driver("CommandProtocol", name=name, activate=False)
        monkeypatch.setattr(driver, "run", lambda cmd, timeout=30.0, name=name: (used.append(name), ([], [], 0))[1])
    target.activate(target.get_driver("CommandProtocol", name="shell", activate=False))
    try:
        Role("device", target, "uboot-pair").run("true")
    finally:
        env.cleanup()
    assert used == ["shell"]


def test_a_console_error_is_one_line_without_pexpects_object_dump():
    # A real pexpect EOF from a real process: its message carries 25 lines about the spawn object.
    import pexpect

    from hil.lab.board.console import console_error

    child = pexpect.spawn("true")
    with pytest.raises(pexpect.EOF) as raised:
        child.expect("never printed", timeout=10)
    assert len(str(raised.value).splitlines()) > 10 and "object at 0x" in str(raised.value)
    assert console_error(raised.value) == "EOF: End Of File (EOF). Exception style platform."
    assert console_error(ValueError("bad\n  value")) == "ValueError: bad value"
