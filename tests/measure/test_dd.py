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
    return (DATA / f"{name}.txt").read_text(), source


def _command_size(command: str) -> int:
    args = dict(arg.split("=", 1) for arg in shlex.split(command) if "=" in arg)
    return dd.block_bytes(args["bs"]) * int(args["count"])


COREUTILS_OK = [
    "coreutils-zero-64M",
    "coreutils-write-direct",
    "coreutils-read-direct",
    "coreutils-512-bytes",
    "coreutils-1-byte",
]


@pytest.mark.parametrize("name", COREUTILS_OK)
def test_parses_coreutils_summaries(name):
    output, source = _capture(name)
    assert source["tool"].startswith("dd (coreutils)") and source["exit"] == "0"
    transfer = dd.parse(output)
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
    transfer = dd.parse(output)
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
    ],
)
def test_output_without_a_clean_summary_is_a_parse_error_keeping_the_raw_output(name, problem):
    output, _ = _capture(name)
    with pytest.raises(ParseError, match=re.escape(problem)) as caught:
        dd.parse(output)
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
    assert dd.parse(warned) == dd.parse(output)


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
        "dd", f"if={node}", "of=/dev/null", "bs=64K", "count=2048", "iflag=direct"
    ]  # fmt: skip
    assert shlex.split(dd.write_command(node, "1M", 128)) == [
        "dd", "if=/dev/zero", f"of={node}", "bs=1M", "count=128", "oflag=direct", "conv=fsync"
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

    written = dd.parse(sh(dd.write_command(str(node), "64K", 1)))
    read = dd.parse(sh(dd.read_command(str(node), "64K", 1)))
    assert written.bytes == read.bytes == 1 << 20
    assert sorted(p.name for p in tmp_path.iterdir()) == [node.name]
    assert node.stat().st_size == 1 << 20
