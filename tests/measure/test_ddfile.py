"""hil.measure.ddfile on real output (tests/data/dd-sync, see its capture.sh) and its commands."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from hil.measure import dd, ddfile
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "dd-sync"


def _capture(name: str) -> tuple[str, dict[str, str]]:
    source = dict(line.split(": ", 1) for line in (DATA / f"{name}.source").read_text().splitlines())
    return (DATA / f"{name}.txt").read_bytes().decode(), source


def _parse(name: str) -> ddfile.SyncedWrite:
    output, source = _capture(name)
    return ddfile.parse_synced(output, **dd.asked(source["command"]))


@pytest.mark.parametrize("name", ["pc-write-64K-16M", "vlab-write-4K-128M"])
def test_the_sync_time_is_added_to_dd_time(name):
    output, source = _capture(name)
    assert source["exit"] == "0"
    result = _parse(name)
    lines = output.splitlines()
    start, end = (int(n) for n in lines[-1].split()[1:])
    seconds = float(lines[-2].split(" copied, ")[1].split(" s, ")[0])
    assert (result.dd_seconds, result.sync_seconds) == (seconds, (end - start) / 1e9)
    assert result.bytes == int(lines[-2].split()[0])
    # Seed 001: bytes / (dd's real time + sync's real time).
    assert result.mb_per_s == pytest.approx(result.bytes / (seconds + (end - start) / 1e9) / 1e6)


def test_the_virtual_board_capture_is_what_ddfile_builds():
    _, source = _capture("vlab-write-4K-128M")
    assert source["command"] == ddfile.write_command("/mnt/hil-msc/hil-msc.bin", "4K", 128)
    _, source = _capture("pc-write-64K-16M")
    assert source["command"] == ddfile.write_command("/var/tmp/hil-dd-sync-capture/file.bin", "64K", 16)


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("pc-busybox-date", "no sync timing"),  # busybox date prints %N as it is
        ("pc-file-too-large", "no sync timing"),  # dd failed: the && chain never timed a sync
    ],
)
def test_failed_runs_are_parse_errors_with_the_raw_output(name, says):
    output, _ = _capture(name)
    with pytest.raises(ParseError, match=says) as caught:
        _parse(name)
    assert caught.value.raw_output == output


def test_a_dd_error_before_the_sync_line_is_a_parse_error():
    # Built from a real capture: dd's error line kept, a sync line appended as a board would print it.
    output, source = _capture("pc-file-too-large")
    text = output + "sync-ns 1795428746197569195 1795428746211624242\n"
    with pytest.raises(ParseError, match="dd reported an error") as caught:
        ddfile.parse_synced(text, **dd.asked(source["command"].split("; ", 2)[2]))
    assert caught.value.raw_output == text


def test_a_clock_that_went_back_is_no_timing():
    output, source = _capture("pc-write-64K-16M")
    start, end = output.splitlines()[-1].split()[1:]
    text = output.replace(f"{start} {end}", f"{end} {start}")
    with pytest.raises(ParseError, match="not beyond the clock's resolution"):
        ddfile.parse_synced(text, **dd.asked(source["command"]))


def test_commands_quote_the_path_and_run_in_a_real_shell(tmp_path):
    path = tmp_path / "it's a file"
    # dash as the boards run it; drop_caches needs root, so only the quoting of the dd part is run here.
    command = ddfile.read_command(str(path), "4K", 1)
    path.write_bytes(b"\0" * 1024 * 1024)
    out = subprocess.run(["sh", "-c", command + " 2>&1"], capture_output=True, text=True, check=True).stdout
    assert dd.parse(out, expected_bytes=1024 * 1024).bytes == 1024 * 1024
    assert shlex.quote(f"of={path}") in ddfile.write_command(str(path), "4K", 1)


@pytest.mark.parametrize(
    "stamps",
    [
        "1795428746 1795428747",  # `date +%s%N` without %N support printed seconds only: "1 ns"
        "1795428746000000000 1795428746000000000",  # a clock of whole seconds: no time at all
        "1795428746197569195 1795428746197569196",  # one tick: below what the clock can tell from none
    ],
)
def test_a_sync_below_the_clock_resolution_is_no_timing(stamps):
    output, source = _capture("pc-write-64K-16M")
    text = output.replace(" ".join(output.splitlines()[-1].split()[1:]), stamps)
    with pytest.raises(ParseError):
        ddfile.parse_synced(text, **dd.asked(source["command"]))


class _Answering:
    """A role whose shell answers the write with a real capture (as tests/measure/test_run_wrappers.py's)."""

    label = "captured board"

    def __init__(self, output: str) -> None:
        self.output = output

    def run_status(self, command: str, *, timeout: float) -> tuple[int, str]:
        return 0, self.output


@pytest.mark.parametrize(("name", "bs", "mb"), [("pc-write-64K-16M", "64K", 16), ("vlab-write-4K-128M", "4K", 128)])
def test_the_write_pair_is_seed_001s_synchronous_and_asynchronous_figures_of_one_run(name, bs, mb):
    output, _ = _capture(name)
    synced = _parse(name)
    pair = ddfile.write_pair(_Answering(output), "/mnt/file.bin", block_size=bs, total_mb=mb)  # type: ignore[arg-type]
    assert pair.values["throughput"].value == pytest.approx(synced.mb_per_s)
    assert pair.values["async_throughput"].value == pytest.approx(synced.bytes / synced.dd_seconds / 1e6)
    assert pair.values["async_throughput"].value > pair.values["throughput"].value  # the sync's time is left out
    assert pair.raw == output and pair.details == {"dd_s": synced.dd_seconds, "sync_s": synced.sync_seconds}


class ReadingBoard:
    """A role whose dd answers with a real capture (tests/data/dd), the commands it got kept in `steps`."""

    label = "captured board"

    def __init__(self, steps: list[str]) -> None:
        self.steps = steps

    def run(self, command: str, **_: object) -> str:
        self.steps.append(command)
        return ""

    def run_status(self, command: str, **_: object) -> tuple[int, str]:
        self.steps.append(command)
        return 0, (DATA.parent / "dd" / "coreutils-zero-64M.txt").read_bytes().decode()


def test_a_reattached_read_reattaches_first_and_keeps_its_seconds():
    steps: list[str] = []
    path = "/mnt/hil-msc/hil-msc.bin"

    def reattach() -> float:  # what GadgetOnLink.reattach_disk returns: its seconds
        steps.append("reattach")
        return 2.914

    sample = ddfile.read_reattached(ReadingBoard(steps), path, reattach, block_size="1M", total_mb=64)  # type: ignore[arg-type]
    assert steps == ["reattach", dd.DROP_CACHES, ddfile.read_command(path, "1M", 64)]
    assert sample.details == {"reattach_s": 2.91}
    assert sample.value == pytest.approx(67108864 / 0.00233699 / 1e6)
