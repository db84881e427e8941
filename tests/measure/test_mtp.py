"""hil.measure.mtp on real output (tests/data/mtp): transfers over the virtual board's MTP gadget (umtprd on
FunctionFS, libmtp 1.1.20 on dummy_hcd's host side) and the tools run with no device attached."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from hil.measure import mtp
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "mtp"


def _capture(name: str) -> tuple[str, dict[str, object]]:
    source = dict(line.split(": ", 1) for line in (DATA / f"{name}.source").read_text().splitlines())
    return (DATA / f"{name}.txt").read_text(), mtp.asked(source["command"])


TRANSFERS = sorted(path.stem for path in DATA.glob("*-16M-*.txt"))


def test_the_captures_cover_both_directions():
    assert any(name.startswith("sendfile-") for name in TRANSFERS)
    assert any(name.startswith("getfile-") for name in TRANSFERS)


@pytest.mark.parametrize("name", TRANSFERS)
def test_a_real_transfer_gives_bytes_over_the_hosts_own_clock(name):
    text, asked = _capture(name)
    transfer = mtp.parse(text, **asked)
    marker = re.search(r"start=([0-9.]+) end=([0-9.]+) bytes=([0-9]+)", text)
    assert marker is not None
    assert transfer.direction == ("write" if name.startswith("sendfile") else "read")
    assert transfer.bytes == int(marker[3]) == asked["expected_bytes"] == 16 * 1024 * 1024
    assert transfer.seconds == pytest.approx(float(marker[2]) - float(marker[1]))
    assert transfer.mb_per_s == pytest.approx(transfer.bytes / transfer.seconds / 1e6)
    assert transfer.object_id == 1


@pytest.mark.parametrize("name", ["sendfile-no-device", "getfile-no-device"])
def test_no_device_is_an_error_although_the_tool_exits_0(name):
    text, asked = _capture(name)
    assert "exit=0" in text  # libmtp's tools report "No devices." with exit status 0
    with pytest.raises(ParseError, match="No devices") as error:
        mtp.parse(text, **asked)
    assert error.value.raw_output == text


def test_a_file_of_another_size_on_the_host_is_an_error():
    text, asked = _capture("getfile-16M-1")
    with pytest.raises(ParseError, match="16777215 bytes, 16777216 expected"):
        mtp.parse(text.replace("bytes=16777216", "bytes=16777215"), **asked)


def test_progress_short_of_the_total_is_an_error():
    text, asked = _capture("sendfile-16M-1")
    last = re.search(r"Progress: [0-9]+ of ([0-9]+) \(100%\)", text)
    assert last is not None
    cut = text.replace(last[0], f"Progress: 1024 of {last[1]} (0%)")
    with pytest.raises(ParseError, match="stopped at 1024"):
        mtp.parse(cut, **asked)


def test_a_failed_session_close_is_an_error():
    # What mtp-sendfile printed when umtprd (inotify on) never answered after the object (see hil.lab.usb_gadget.mtp):
    # the lines are inserted into a real capture, as the tool prints them before its exit.
    text, asked = _capture("sendfile-16M-1")
    failing = text.replace("New file ID: 1\n", "ERROR: Could not close session!\n")
    with pytest.raises(ParseError, match="Could not close session"):
        mtp.parse(failing, **asked)


def test_a_cut_off_timing_line_is_an_error():
    text, asked = _capture("getfile-16M-2")
    with pytest.raises(ParseError, match="timing line"):
        mtp.parse(text.rsplit(" bytes=", 1)[0], **asked)


def test_a_transfer_too_short_for_the_clock_is_an_error():
    text, asked = _capture("getfile-16M-1")
    start = re.search(r"start=([0-9.]+)", text)
    assert start is not None
    quick = re.sub(r"end=[0-9.]+", f"end={float(start[1]) + 0.5:.2f}", text)
    with pytest.raises(ParseError, match="too short"):
        mtp.parse(quick, **asked)


def test_the_command_quotes_paths_and_names_what_it_expects():
    command = mtp.transfer_command("write", local="/tmp/a b/x;y", remote="x;y", expected_bytes=42, log="/tmp/l og")
    assert "mtp-sendfile '/tmp/a b/x;y' 'x;y'" in command
    assert mtp.asked(command) == {"direction": "write", "expected_bytes": 42}
    read = mtp.transfer_command("read", local="/tmp/r", remote="7", expected_bytes=9, log="/tmp/r.log")
    assert "mtp-getfile 7 /tmp/r" in read
    assert mtp.asked(read) == {"direction": "read", "expected_bytes": 9}
    with pytest.raises(ValueError):
        mtp.transfer_command("sideways", local="/tmp/r", remote="7", expected_bytes=9, log="/tmp/r.log")


def test_the_command_runs_in_a_posix_shell_and_reports_the_local_size(tmp_path):
    # The timing wrapper alone, around a tool that is not there: the shell must still print the timing line.
    local = tmp_path / "object"
    local.write_bytes(b"x" * 1000)
    command = mtp.transfer_command("write", local=str(local), remote="o", expected_bytes=1000, log=str(tmp_path / "l"))
    command = command.replace("mtp-sendfile", "hil-no-such-tool")
    output = subprocess.run(["sh", "-c", command], capture_output=True, text=True, check=False).stdout
    assert re.search(r"hil-mtp: exit=127 start=[0-9.]+ end=[0-9.]+ bytes=1000$", output.strip())
