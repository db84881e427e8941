"""The `hil` command as a user meets it: a version, a closed pipe that ends quietly, every help text whole, and
one list of commands (hil.cli.COMMANDS) that README and docs/running.md show verbatim."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hil
from hil.cli import COMMANDS, commands_markdown

REPO = Path(__file__).resolve().parents[1]


def _hil(*args: str, stdout: int | None = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hil", *args], stdout=stdout, stderr=subprocess.PIPE, text=True, check=False, cwd=REPO
    )


def test_version_is_the_packages():
    done = _hil("--version")
    assert done.returncode == 0 and done.stdout == f"hil {hil.__version__}\n"


@pytest.mark.parametrize("args", [["--help"], ["catalogue"]], ids=" ".join)
def test_a_closed_pipe_ends_quietly(args):
    """`hil catalogue | head -1`: the reader is gone before hil writes (its end closed before hil starts)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = _hil(*args, stdout=write_end)
    finally:
        os.close(write_end)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.stderr == ""
    assert done.returncode == 141  # 128 + SIGPIPE, what a shell reports for a tool the closed pipe stopped


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_help_text_is_whole(name):
    """The description argparse prints (the module's first paragraph) ends a sentence, never mid-line."""
    done = _hil(name, "--help")
    assert done.returncode == 0, done.stderr
    description = done.stdout.split("\n\n")[1]
    assert re.search(r"[.:)]$", description.strip()), f"hil {name} --help stops mid-sentence: {description!r}"


@pytest.mark.parametrize("page", ["README.md", "docs/running.md"])
def test_the_pages_list_the_commands_hil_has(page):
    text = (REPO / page).read_text(encoding="utf-8")
    found = re.search(r"<!-- commands: .*? -->\n(.*?)<!-- /commands -->", text, re.S)
    assert found, f"{page} has no generated list of commands (<!-- commands: ... --> ... <!-- /commands -->)"
    expected = commands_markdown()
    assert found.group(1) == expected, f"{page}'s list of commands is stale; between the markers put:\n{expected}"
