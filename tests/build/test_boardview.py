"""The board's own word on what it booted, against the build hil put on it."""

from __future__ import annotations

import pytest

from hil.build.boardview import describe, problems, view
from hil.build.manifest import Build

BUILD = Build("rc1", None, None, {}, ("quiet", "hil.build=rc1"), "6.1.0-56-amd64")  # type: ignore[arg-type]
# What the virtual board printed for `uname -r; cat /proc/cmdline` booted with build vlab-ref (2026-11-25).
SAID = "6.1.0-56-amd64\nconsole=ttyS0 loglevel=3 panic=-1 quiet hil.build=rc1\n"


def test_the_board_that_booted_the_build_has_nothing_wrong():
    release, cmdline = view(SAID)
    assert describe(release, cmdline) == f"kernel 6.1.0-56-amd64; /proc/cmdline: {SAID.splitlines()[1]}"
    assert problems(BUILD, release, cmdline) == []


@pytest.mark.parametrize(
    ("release", "cmdline", "problem"),
    [
        ("6.1.0-9-amd64", "quiet hil.build=rc1", "it runs kernel 6.1.0-9-amd64, the build's is 6.1.0-56-amd64"),
        ("6.1.0-56-amd64", "quiet hil.build=rc0", "its command line names build 'rc0'"),
        ("6.1.0-56-amd64", "quiet", "its command line names no build"),
        ("6.1.0-56-amd64", "hil.build=rc1", "its command line lacks quiet"),
        ("6.1.0-56-amd64", "quiet hil.build=rc1 hil.build=rc1", "names build 'rc1'"),  # twice: not hil's line
    ],
)
def test_a_board_running_something_else_says_what(release, cmdline, problem):
    (found,) = problems(BUILD, release, cmdline)
    assert problem in found


@pytest.mark.parametrize("output", ["", "6.1.0\n", "a\nb\nc\n"])
def test_output_that_is_not_a_release_and_a_command_line_is_refused(output):
    with pytest.raises(ValueError, match="not a release and a command line"):
        view(output)
