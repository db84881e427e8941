"""A path README or a docs page names is a promise: every repository path in backquotes exists (three did not,
2026-11-24), and the rehearsal bench's commands name real options, files and hil subcommands."""

from __future__ import annotations

import re

from hil.cli import COMMANDS
from tests.readme import README, commands_after, pages

REPO = README.parent
TOP = ("hil/", "tests/", "testcases/", "examples/", "scripts/", "benchmarks/", ".ci/")


def test_every_repository_path_readme_and_the_docs_name_exists():
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages())
    named = {m for m in re.findall(r"`([^`\s]+)`", text) if m.startswith((*TOP, "docs/"))}
    # A path with a placeholder (<hash>, NAME) or a glob stands for a family of files: its fixed part exists.
    missing = []
    for path in sorted(named):
        fixed = re.split(r"[<*]|NAME|\.\.\.", path, maxsplit=1)[0].split(":")[0]
        if not (REPO / fixed).exists() and not list(REPO.glob(fixed.rstrip("/") + "*")):
            missing.append(path)
    assert not missing, f"README or docs/ name paths the repository does not have: {missing}"


def test_the_rehearsal_bench_commands_name_real_subcommands_files_and_options():
    commands = commands_after("builds the card", "The rehearsal bench: the real-board path without a board")
    words = [word for command in commands for word in command]
    assert "bench" in COMMANDS
    pytest_line = next(command for command in commands if command[0].endswith("pytest"))
    for option in ("--boards", "--lg-env"):
        path = pytest_line[pytest_line.index(option) + 1]
        assert (REPO / path).is_file(), path
    assert any(word == "stop" for word in words)
