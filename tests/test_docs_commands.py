"""Every command README and the documentation site show is checked against what exists: a `bash scripts/...`
script, a pytest option, a `hil` subcommand and its options, a `python -m` module. Each command is taken from
the ```sh blocks and from inline code that starts with a command; an option that does not exist, a script or
module that is not there, or a subcommand hil does not have fails this test (a page's promise is a test).
The `hil` subcommands shown are run with --help; tests/test_suite_collects.py and
tests/pipeline/test_jenkinsfile.py run the longer commands."""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from functools import cache

import pytest

from hil.cli import COMMANDS
from tests.readme import REPO, pages

# Inline code that is a command: what a reader would paste into a shell.
_INLINE = re.compile(r"`((?:\.venv/bin/)?(?:pytest|hil|mkdocs|python -m [a-z._]+)(?: [^`]*)?|bash scripts/[^`]+)`")
_BLOCK = re.compile(r"```sh\n(.*?)```", re.S)
_PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*$|<[^>]+>|\.\.\.")


def shown_commands() -> list[tuple[str, list[str]]]:
    """(page, argv) of every command README and docs/ show."""
    found = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        lines = [line for block in _BLOCK.findall(text) for line in block.splitlines() if line.strip()]
        lines += _INLINE.findall(text)
        for line in lines:
            argv = shlex.split(line, comments=True)
            if argv:
                found.append((page.relative_to(REPO).as_posix(), argv))
    return found


@cache
def _help(*program: str) -> str:
    run = subprocess.run([*program, "--help"], cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, f"{' '.join(program)} --help failed: {run.stdout}{run.stderr}"
    return run.stdout


def _pytest_help() -> str:
    return _help(sys.executable, "-m", "pytest", "-p", "no:cacheprovider")


def _options(argv: list[str]) -> list[str]:
    return [word.split("=", 1)[0] for word in argv if word.startswith("-") and len(word) > 1]


def _unknown(options: list[str], help_text: str) -> list[str]:
    return [option for option in options if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text)]


def check(argv: list[str]) -> str | None:
    """What is wrong with a shown command, or None."""
    while argv and re.fullmatch(r"[A-Z_]+=\S*", argv[0]):  # LG_COORDINATOR=... pytest: the environment
        argv = argv[1:]
    if argv[0] == "bash":
        script = REPO / argv[1]
        if not script.is_file():
            return f"no script {argv[1]}"
        usage = re.search(r"usage: (scripts/\S+ .*?)[\"']", script.read_text())
        if usage:  # a script with options of its own says them in its usage line
            return _unknown_of(_options(argv[2:]), usage.group(1), argv[1])
        return _unknown_of(_options(argv[2:]), _pytest_help(), "pytest (scripts pass their arguments on)")
    program = argv[0].removeprefix(".venv/bin/")
    words = argv[1:]
    if program.startswith("python"):
        if words[:1] != ["-m"] or len(words) < 2:
            return None  # a script run by path: checked by the path test
        program, words = words[1], words[2:]
        if program not in ("hil", "pytest"):
            if importlib.util.find_spec(program) is None:
                return f"no module {program}"
            if not program.startswith("hil.") or not _options(words):
                return None
            # A hil module's own command line: its options as its --help (of its subcommand) lists them.
            sub = words[:1] if words and not words[0].startswith("-") else []
            return _unknown_of(_options(words), _help(sys.executable, "-m", program, *sub), program)
    if program == "pytest":
        return _unknown_of(_options(words), _pytest_help(), "pytest")
    if program == "hil":
        if not words or words[0].startswith("-"):
            return _unknown_of(_options(words), _help(sys.executable, "-m", "hil"), "hil")
        if _PLACEHOLDER.search(words[0]):
            return None  # `hil COMMAND --help`: the placeholder names any of them
        if words[0] not in COMMANDS:
            return f"hil has no command {words[0]!r} (it has {', '.join(COMMANDS)})"
        return _unknown_of(_options(words[1:]), _help(sys.executable, "-m", "hil", words[0]), f"hil {words[0]}")
    if program == "mkdocs":
        return _unknown_of(_options(words[1:]), _help(str(REPO / ".venv/bin/mkdocs"), *words[:1]), "mkdocs")
    return None


def _unknown_of(options: list[str], help_text: str, what: str) -> str | None:
    missing = _unknown(options, help_text)
    return f"{what} has no option {', '.join(missing)}" if missing else None


def test_pages_show_commands_at_all():
    shown = shown_commands()
    assert len(shown) > 30
    assert any(argv[:2] == ["bash", "scripts/suite.sh"] for _, argv in shown)


@pytest.mark.parametrize(("page", "argv"), shown_commands(), ids=lambda value: str(value)[:70])
def test_every_command_shown_exists_with_its_options(page, argv):
    problem = check(argv)
    assert problem is None, f"{page}: `{shlex.join(argv)}`: {problem}"


def test_the_checker_catches_what_it_is_for():
    assert check(["bash", "scripts/nosuch.sh"]) == "no script scripts/nosuch.sh"
    assert "no option --boardz" in check([".venv/bin/pytest", "--boardz", "x"])
    assert "has no command 'frobnicate'" in check(["hil", "frobnicate"])
    assert "no option --nosuch" in check(["hil", "catalogue", "--nosuch"])
    assert check(["python", "-m", "hil.nosuch"]) == "no module hil.nosuch"
    assert "no option --spots" in check(["python", "-m", "hil.vlab.lab", "start", "--spots", "2"])
    assert "no option --boardz" in check(["LG_PLACE=x", ".venv/bin/pytest", "--boardz", "y"])
    assert check([".venv/bin/pytest", "--board", "vlab-ss", "-k", "read", "--matrix", "full"]) is None
    assert "scripts/setup.sh has no option --bnech" in check(["bash", "scripts/setup.sh", "--bnech"])
    assert check(["bash", "scripts/setup.sh", "--bench"]) is None
    assert check(["bash", "scripts/suite.sh", "--board", "vlab-ss"]) is None  # its arguments go to pytest
