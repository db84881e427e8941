"""hil.measure.dd on real dd output (tests/data/dd, see its capture.sh) and its commands run by a real shell."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from hil.measure import dd
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "dd"
RATE_UNITS = {"kB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9}


def _capture(name: str) -> tuple[str, dict[str, str]]:
    """The verbatim output and its sidecar (command, tool, exit status)."""
    source = dict(line.split(": ", 1) for line in (DATA / f"{name}.source").read_text().splitlines())
    return (DATA / f"{name}.txt").read_bytes().decode(), source  # not read_text(): it turns CR into LF


def _command_size(command: str) -> int:
    args = dict(arg.split("=", 1) for arg in shlex.split(command) if "=" in arg)
    return dd.block_bytes(args["bs"]) * int(args["count"])


def _parse(name: str) -> dd.DdTransfer:
    """Parse a capture against what its command asked dd to copy."""
    output, source = _capture(name)
    return dd.parse(output, expected_bytes=_command_size(source["command"]))


COREUTILS_OK = [
    "coreutils-zero-64M",
    "coreutils-write-direct",
    "coreutils-read-direct",
    "coreutils-512-bytes",
    "coreutils-1-byte",
    "coreutils-progress",
    "coreutils-usr1-two-summaries",
]


@pytest.mark.parametrize("name", COREUTILS_OK)
def test_parses_coreutils_summaries(name):
    output, source = _capture(name)
    assert source["tool"].startswith("dd (coreutils)") and source["exit"] == "0"
    transfer = _parse(name)
    assert transfer.bytes == _command_size(source["command"])
    # Checked against the line by other means than the parser's regex: dd's own seconds and rounded rate.
    summary = output.splitlines()[-1]
    _, seconds, rate = summary.rsplit(", ", 2)
    assert transfer.seconds == float(seconds.removesuffix(" s"))
    number, unit = rate.split(" ")
    last_digit = 10.0 ** -len(number.partition(".")[2])  # dd prints "474", "28.7" or "1.5"
    assert transfer.mb_per_s * 1e6 == pytest.approx(float(number) * RATE_UNITS[unit], abs=last_digit * RATE_UNITS[unit])


def test_parses_scientific_notation_and_a_singular_byte():
    output, _ = _capture("coreutils-1-byte")
    assert "1 byte copied, " in output and "e-05 s" in output  # what the case is about
    transfer = dd.parse(output, expected_bytes=1)
    assert (transfer.bytes, transfer.seconds) == (1, pytest.approx(3.372e-05))


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("busybox-zero-64M", "no transfer summary"),  # Debian's busybox dd prints no rate: never guess one
        ("coreutils-status-none", "no transfer summary"),
        ("coreutils-missing-input", "failed to open '/nonexistent'"),
        ("coreutils-no-space", "error writing '/dev/full'"),
        ("busybox-missing-input", "can't open '/nonexistent'"),
        ("busybox-no-space", "error writing '/dev/full'"),
        # 1 MiB got through before EFBIG and dd printed a rate for it: still no measurement.
        ("coreutils-partial-write", "File too large"),
        # Exit 0, a clean summary, and fewer bytes than bs*count: a short read is no measurement.
        ("coreutils-short-read", "copied 262144 bytes of the 1048576 asked for"),
        ("coreutils-short-read-partial-block", "copied 100000 bytes of the 1048576 asked for"),
        ("coreutils-usr1-partial-read", "copied 99926016 bytes of the 100663296 asked for"),
        ("busybox-short-read", "no transfer summary"),
    ],
)
def test_output_without_a_clean_summary_is_a_parse_error_keeping_the_raw_output(name, problem):
    output, source = _capture(name)
    asked = dd.asked(source["command"])
    with pytest.raises(ParseError, match=re.escape(problem)) as caught:
        dd.parse(output, **asked)
    assert caught.value.raw_output == output


def test_the_partial_write_capture_does_carry_a_rate_line():
    # Otherwise the case above would pass for the wrong reason (no summary at all).
    output, source = _capture("coreutils-partial-write")
    assert source["exit"] == "1"
    assert re.search(r"^1048576 bytes .* copied, .* s, .*B/s$", output, re.MULTILINE)


def test_a_warning_does_not_reject_a_measurement():
    output, _ = _capture("coreutils-read-direct")
    # The wording of coreutils' short-read warning; the data that went through is still a real transfer.
    warned = "dd: warning: partial read (65536 bytes); suggest iflag=fullblock\n" + output
    assert dd.parse(warned, expected_bytes=1 << 24) == dd.parse(output, expected_bytes=1 << 24)


@pytest.mark.parametrize(
    ("size", "expected"),
    [("512", 512), ("4K", 4096), ("64k", 65536), ("1M", 1 << 20), ("2G", 2 << 30), ("0", 0)],
)
def test_block_bytes(size, expected):
    assert dd.block_bytes(size) == expected


@pytest.mark.parametrize("size", ["", "M", "1.5M", "64KB", "64KiB", "-1", "1T", " 1M"])
def test_block_bytes_rejects_what_it_cannot_size(size):
    with pytest.raises(ValueError, match="block size"):
        dd.block_bytes(size)


HOSTILE_NODES = [
    "/dev/sda",
    "/dev/disk/by-id/usb-hil gadget-0:0",
    "/tmp/$(reboot)",
    "/tmp/`reboot`",
    "/tmp/a'b\"c;reboot",
    "/tmp/line\nbreak",
]


@pytest.mark.parametrize("node", HOSTILE_NODES)
def test_commands_keep_the_node_as_one_literal_argument(node):
    assert shlex.split(dd.read_command(node, "64K", 128)) == [
        "LC_ALL=C", "dd", f"if={node}", "of=/dev/null", "bs=64K", "count=2048", "iflag=direct"
    ]  # fmt: skip
    assert shlex.split(dd.write_command(node, "1M", 128)) == [
        "LC_ALL=C", "dd", "if=/dev/zero", f"of={node}", "bs=1M", "count=128", "oflag=direct", "conv=fsync"
    ]  # fmt: skip


@pytest.mark.parametrize(("size", "total_mb", "count"), [("64K", 1, 16), ("3M", 10, 3), ("4M", 1, 1), ("512", 1, 2048)])
def test_count_covers_the_total_in_whole_blocks(size, total_mb, count):
    assert f"count={count}" in shlex.split(dd.read_command("/dev/sdb", size, total_mb))


def test_the_commands_run_in_a_real_shell_on_a_hostile_file_name(tmp_path):
    """write then read 1 MiB with the PC's coreutils dd: the name stays literal and the output parses."""
    node = tmp_path / "disk $(touch injected) `touch injected2` 'q\" ;touch injected3;.img"

    def sh(command: str) -> str:
        proc = subprocess.run(["/bin/sh", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=30)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout + proc.stderr

    written = dd.parse(sh(dd.write_command(str(node), "64K", 1)), expected_bytes=1 << 20)
    read = dd.parse(sh(dd.read_command(str(node), "64K", 1)), expected_bytes=1 << 20)
    assert written.bytes == read.bytes == 1 << 20
    assert sorted(p.name for p in tmp_path.iterdir()) == [node.name]
    assert node.stat().st_size == 1 << 20


def test_with_status_progress_the_final_summary_counts_not_the_progress_lines():
    output, _ = _capture("coreutils-progress")
    first_progress = output.split("\r")[1]  # "84934656 bytes (85 MB, 81 MiB) copied, 1 s, 82.6 MB/s"
    assert first_progress.endswith("copied, 1 s, 82.6 MB/s")  # what the case is about
    transfer = _parse("coreutils-progress")
    assert (transfer.bytes, transfer.seconds) == (201326592, 2.58676)


def test_of_two_summaries_the_last_counts():
    output, _ = _capture("coreutils-usr1-two-summaries")
    assert output.count(" copied, ") == 2 and output.startswith("26+0 records in\n")
    transfer = _parse("coreutils-usr1-two-summaries")
    assert (transfer.bytes, transfer.seconds) == (100663296, 1.80888)


def test_a_cut_off_last_summary_never_falls_back_to_an_earlier_one():
    output, _ = _capture("coreutils-usr1-two-summaries")
    cut = output[: output.rindex(" s, ")]  # the output ends inside the final summary
    with pytest.raises(ParseError, match="does not end with a complete summary") as caught:
        dd.parse(cut, expected_bytes=100663296)
    assert caught.value.raw_output == cut


def _summary_with(bytes_text: str = "16777216", seconds_text: str = "0.0354065") -> str:
    """The read-direct capture with its byte count or seconds replaced (built from the capture)."""
    output, _ = _capture("coreutils-read-direct")
    assert "16777216 bytes (17 MB, 16 MiB) copied, 0.0354065 s, " in output
    return output.replace("16777216 bytes", f"{bytes_text} bytes").replace("0.0354065 s", f"{seconds_text} s")


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        (_summary_with(bytes_text="١٦٧٧٧٢١٦"), "does not end with a complete summary"),  # Arabic-Indic digits
        (_summary_with(bytes_text="１６７７７２１６"), "does not end with a complete summary"),  # fullwidth digits
        (_summary_with(seconds_text="0.0３54065"), "does not end with a complete summary"),
        (_summary_with(seconds_text="1.2.3"), "dd's seconds: '1.2.3' is not a number"),
        (_summary_with(seconds_text="1e999"), "dd's seconds: '1e999' is not a finite number"),
        (_summary_with(seconds_text="0.0"), "no transfer to time"),
        (_summary_with(bytes_text="9" * 310), "dd's byte count: '999"),
        (_summary_with(bytes_text="16777215"), "copied 16777215 bytes of the 16777216 asked for"),
        ("", "no transfer summary"),
        ("\x00\xff\ufffd\x1b[2J\ud800 copied, \x00", "does not end with a complete summary"),
    ],
    ids=[
        "arabic-digits",
        "fullwidth-digits",
        "unicode-digit-in-seconds",
        "1.2.3 s",
        "1e999 s",
        "zero-seconds",
        "310-digit-bytes",
        "one-byte-short",
        "empty",
        "binary-garbage",
    ],
)
def test_bad_summaries_are_parse_errors_never_other_exceptions(output, problem):
    with pytest.raises(ParseError, match=re.escape(problem)) as caught:
        dd.parse(output, expected_bytes=16777216)
    assert caught.value.raw_output == output


KERNEL_LINE = "[  123.456789] usb 1-1: new high-speed USB device number 2 using xhci_hcd"


def test_kernel_lines_between_dd_lines_are_removed():
    output, _ = _capture("coreutils-progress")
    lines = output.split("\n")
    noisy = "\n".join([lines[0], KERNEL_LINE, *lines[1:3], f"<6>{KERNEL_LINE}", *lines[3:]])
    assert dd.parse(noisy, expected_bytes=201326592) == _parse("coreutils-progress")


def test_a_kernel_message_cutting_into_the_summary_is_detected():
    output, _ = _capture("coreutils-read-direct")
    at = output.index(" MB, 16 MiB)")  # the console shows printk in the middle of dd's line
    noisy = output[:at] + KERNEL_LINE + "\n" + output[at:]
    with pytest.raises(ParseError, match="a kernel message cuts into a line of its output") as caught:
        dd.parse(noisy, expected_bytes=16777216)
    assert caught.value.raw_output == noisy


def test_asked_reads_bs_times_count_from_the_command():
    assert dd.asked(dd.read_command("/dev/sdb", "64K", 16)) == {"expected_bytes": 16 << 20}
    assert dd.asked("dd if=/nonexistent of=/dev/null") == {"expected_bytes": None}


def test_the_commands_run_in_the_c_locale(tmp_path):
    """Under a locale with a decimal comma the summary would not parse: the commands set LC_ALL=C themselves."""
    node = tmp_path / "disk.img"
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "de_DE.UTF-8", "LANG": "de_DE.UTF-8"}
    for command in (dd.write_command(str(node), "64K", 1), dd.read_command(str(node), "64K", 1)):
        assert command.startswith("LC_ALL=C dd ")
        proc = subprocess.run(["/bin/sh", "-c", command], env=env, capture_output=True, text=True, timeout=30)
        assert dd.parse(proc.stderr, expected_bytes=1 << 20).bytes == 1 << 20


@pytest.mark.parametrize("name", COREUTILS_OK)
def test_a_flipped_digit_in_the_seconds_contradicts_dds_own_rate(name):
    # One garbled digit in the seconds (a noisy console) gave up to 5x the real rate while dd's own printed
    # rate said otherwise (issue "numbers that cannot lie"); the rate dd printed is the check.
    output, source = _capture(name)
    summary = output.rstrip().splitlines()[-1]
    seconds = summary.split(" copied, ")[1].split(" s, ")[0]
    first = next(i for i, c in enumerate(seconds) if c in "123456789")
    garbled = seconds[:first] + str(int(seconds[first]) % 9 + 1) + seconds[first + 1 :]
    with pytest.raises(ParseError, match="contradicts its bytes / seconds"):
        dd.parse(output.replace(f" {seconds} s, ", f" {garbled} s, "), expected_bytes=_command_size(source["command"]))
