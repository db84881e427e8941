"""hil.measure.cpfile's parser on real output (tests/data/cp, see its capture.sh) and its commands."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from hil.measure import cpfile
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "cp"
VALID = ["pc-coreutils-256M", "pc-busybox-256M", "vlab-write-bot-32M", "vlab-read-uas-32M"]


def _capture(name: str) -> tuple[str, dict[str, str]]:
    source = dict(line.split(": ", 1) for line in (DATA / f"{name}.source").read_text().splitlines())
    return (DATA / f"{name}.txt").read_bytes().decode(), source


def _parse(name: str) -> cpfile.FileCopy:
    output, source = _capture(name)
    return cpfile.parse(output, **cpfile.asked(source["command"]))


def _clock(output: str) -> tuple[int, int, int, int]:
    fields = dict(part.split("=") for part in output.split()[1:])
    return int(fields["start"]), int(fields["copied"]), int(fields["synced"]), int(fields["bytes"])


@pytest.mark.parametrize("name", VALID)
def test_the_rate_is_the_bytes_over_cp_time_plus_sync_time(name):
    output, source = _capture(name)
    assert source["exit"] == "0"
    result = _parse(name)
    start, copied, synced, size = _clock(output)
    assert (result.bytes, result.cp_seconds) == (size, (copied - start) / 1e9)
    assert result.sync_seconds == (synced - copied) / 1e9
    assert result.bytes == cpfile.asked(source["command"])["expected_bytes"]
    assert result.mb_per_s == pytest.approx(size / ((synced - start) / 1e9) / 1e6)


def test_the_captures_are_what_copy_command_builds():
    scratch = "/var/tmp/hil-cp-capture"
    _, source = _capture("pc-coreutils-256M")
    assert source["command"] == cpfile.copy_command(
        f"{scratch}/source.bin", f"{scratch}/hil-cp.bin", expected_bytes=256 * 1024 * 1024
    )
    for name, src, dst in [
        ("vlab-write-bot-32M", "/tmp/hil-cp-source.bin", "/mnt/hil-usb-disk/hil-cp.bin"),
        ("vlab-read-uas-32M", "/mnt/hil-usb-disk/hil-cp-source.bin", "/tmp/hil-cp.bin"),
    ]:
        _, source = _capture(name)
        assert source["command"] == cpfile.copy_command(src, dst, expected_bytes=32 * 1024 * 1024)


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("pc-busybox-date", r"no timing line after cp .*%N"),  # busybox date prints %N as it is
        ("pc-file-too-large", r"no timing line after cp .*File too large"),  # cp failed: the chain stopped
        ("pc-missing-source", r"no timing line after cp .*cannot stat"),
    ],
)
def test_failed_copies_are_parse_errors_with_the_raw_output(name, says):
    output, _ = _capture(name)
    with pytest.raises(ParseError, match=says) as caught:
        _parse(name)
    assert caught.value.raw_output == output


def test_a_line_cp_printed_before_the_timing_is_an_error():
    # Built from two real captures: cp's error line from one, a timing line from another (a cp that
    # complained and still exited 0 must not count).
    complaint, _ = _capture("pc-file-too-large")
    output, source = _capture("pc-coreutils-256M")
    text = complaint + output
    with pytest.raises(ParseError, match=r"cp printed something .*File too large") as caught:
        cpfile.parse(text, **cpfile.asked(source["command"]))
    assert caught.value.raw_output == text


def test_a_copy_of_another_size_is_an_error():
    output, _ = _capture("pc-coreutils-256M")
    with pytest.raises(ParseError, match=r"the copy holds 268435456 bytes, its source 268435457"):
        cpfile.parse(output, expected_bytes=268435457)


def test_a_clock_that_went_back_is_no_timing():
    output, source = _capture("pc-coreutils-256M")
    start, copied, _, _ = _clock(output)
    text = output.replace(f"start={start} copied={copied}", f"start={copied} copied={start}")
    with pytest.raises(ParseError, match="clock went back"):
        cpfile.parse(text, **cpfile.asked(source["command"]))


def test_a_copy_too_short_to_time_is_an_error():
    output, source = _capture("pc-coreutils-256M")
    start, _, _, _ = _clock(output)
    fast = f"copied={start + 1000} synced={start + 2000}"
    text = " ".join([*output.split()[:2], *fast.split(), output.split()[4]])
    with pytest.raises(ParseError, match="too short to time"):
        cpfile.parse(text, **cpfile.asked(source["command"]))


def test_a_command_that_is_not_a_copy_is_refused_by_asked():
    with pytest.raises(ValueError, match="not a copy command"):
        cpfile.asked("cp a b")


def test_paths_are_quoted_and_the_timing_line_is_printed_by_a_real_shell(tmp_path):
    # dash as the boards run it; drop_caches needs root, so the command runs without that step here.
    source, copy = tmp_path / "it's a source", tmp_path / "a copy; rm -rf x"
    source.write_bytes(b"\x5a" * 1024 * 1024)
    command = cpfile.copy_command(str(source), str(copy), expected_bytes=1024 * 1024)
    assert shlex.quote(str(source)) in command
    runnable = command.replace(" && { sync && echo 3 > /proc/sys/vm/drop_caches; }", "")
    output = subprocess.run(["sh", "-c", runnable], capture_output=True, text=True, check=True).stdout
    assert copy.read_bytes() == source.read_bytes()
    start, copied, synced, size = _clock(output)
    assert size == 1024 * 1024 and start <= copied <= synced
