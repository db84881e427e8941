"""hil.lab.board.shell command lines, executed by the real /bin/sh: every value arrives literally."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from hil.lab.board import shell

# Each would do something else than be printed if it reached the shell unquoted.
HOSTILE = [
    "plain",
    "",
    "two  spaces",
    "it's",
    'say "hi"',
    "$(touch injected)",
    "`touch injected`",
    "x; touch injected",
    "&& touch injected",
    "| tee injected",
    "> injected",
    "$HOME ${PATH}",
    "*",
    "-n",
    "back\\slash\\n",
    "%s %d %%",
    "line\nbreak",
    "trailing newline\n",
    "tab\there",
    "ünïcode ✓",
    "{ brace; }",
]


def sh(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["/bin/sh", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=10)


@pytest.fixture
def workdir(tmp_path: Path):
    """A directory for the shell to run in; afterwards nothing may have been injected into it."""
    yield tmp_path
    assert not any(p.name.startswith("injected") for p in tmp_path.rglob("*"))


@pytest.mark.parametrize("value", HOSTILE)
def test_cmd_passes_each_value_as_one_literal_argument(workdir, value):
    proc = sh(shell.cmd("printf", "%s", value), workdir)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, value, "")


def test_cmd_keeps_argument_boundaries_and_converts_non_strings(workdir):
    proc = sh(shell.cmd("printf", "[%s]", "a b", "", 42, Path("/x y")), workdir)
    assert proc.stdout == "[a b][][42][/x y]"


@pytest.mark.parametrize("value", HOSTILE)
def test_write_puts_the_value_and_a_newline_into_a_hostile_path(workdir, value):
    target = workdir / "dir with 'quote'" / "attr $(touch injected)"
    target.parent.mkdir()
    proc = sh(shell.write(str(target), value), workdir)
    assert proc.returncode == 0, proc.stderr
    assert target.read_text() == f"{value}\n"


def test_all_of_runs_in_order_and_stops_at_the_first_failure(workdir):
    proc = sh(shell.all_of([shell.cmd("printf", "%s", "a;b"), "(exit 3)", shell.cmd("touch", "after")]), workdir)
    assert (proc.returncode, proc.stdout) == (3, "a;b")
    assert not (workdir / "after").exists()


def test_all_of_keeps_each_command_whole(workdir):
    # `||` and `;` inside one step must not bind to the `&&` that joins the steps.
    proc = sh(shell.all_of(["false || printf a", "printf b; printf c", shell.cmd("printf", "%s", "d")]), workdir)
    assert (proc.returncode, proc.stdout) == (0, "abcd")
    proc = sh(shell.all_of(["printf a; false", "printf never"]), workdir)
    assert (proc.returncode, proc.stdout) == (1, "a")


def test_all_of_with_hostile_values_in_every_step(workdir):
    files = [workdir / f"f{i}" for i in range(len(HOSTILE))]
    proc = sh(shell.all_of(shell.write(str(f), v) for f, v in zip(files, HOSTILE, strict=True)), workdir)
    assert proc.returncode == 0, proc.stderr
    assert [f.read_text() for f in files] == [f"{v}\n" for v in HOSTILE]


def test_quiet_swallows_failure_and_output(workdir):
    proc = sh(shell.quiet("printf out; printf err >&2; (exit 4)"), workdir)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_quiet_inside_all_of_lets_the_next_step_run(workdir):
    proc = sh(shell.all_of([shell.quiet("rm /nonexistent/file"), shell.cmd("printf", "%s", "next")]), workdir)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "next", "")


def test_until_exits_0_as_soon_as_the_attempt_succeeds(tmp_path):
    (tmp_path / "there").touch()
    done = sh(shell.until("[ -e there ]", 5), tmp_path)
    assert done.returncode == 0


def test_until_gives_up_after_its_time_and_shows_what_it_saw(tmp_path):
    done = sh(shell.until("[ -e never ]", 1, on_timeout="echo seen: nothing"), tmp_path)
    assert (done.returncode, done.stdout) == (1, "seen: nothing\n")


def test_until_is_bounded_by_time_not_by_tries_when_each_try_is_slow(tmp_path):
    # Each try takes 1 s, far longer than the 0.2 s between tries: a count of tries (1 s / 0.2 s = 5) would
    # run 6 s; the board's clock (whole seconds) ends it after two tries at most, about 2.2 s.
    started = time.monotonic()
    done = sh(shell.until("sleep 1; false", 1), tmp_path)
    assert done.returncode == 1
    assert time.monotonic() - started < 4.5


def test_until_sees_a_file_that_appears_later(tmp_path):
    subprocess.Popen(["/bin/sh", "-c", "sleep 0.5; touch late"], cwd=tmp_path)
    done = sh(shell.until("[ -e late ]", 10), tmp_path)
    assert done.returncode == 0
