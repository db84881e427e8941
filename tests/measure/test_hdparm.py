"""hdparm -t's output, from real captures (tests/data/hdparm): the rate, and what is no measurement."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.measure import hdparm
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "hdparm"


def _capture(name: str) -> tuple[str, str]:
    source = dict(line.split(": ", 1) for line in (DATA / f"{name}.source").read_text().splitlines())
    return (DATA / f"{name}.txt").read_text(), hdparm.asked(source["command"])["device"]


def test_the_virtual_boards_msc_disk_reads_in_mb_per_s_from_hdparms_mib():
    text, device = _capture("vlab-msc-hs")
    read = hdparm.parse(text, device=device)
    assert device == "/dev/sda" and read.bytes == 58 * 2**20
    assert read.mb_per_s == pytest.approx(18.78 * 2**20 / 1e6)  # hdparm's 18.78 "MB" (MiB) per second
    assert read.seconds == pytest.approx(3.09, abs=0.006)


def test_a_device_smaller_than_three_seconds_of_reading_is_timed_whole():
    text, device = _capture("loop-64M")
    assert hdparm.parse(text, device=device).bytes == 64 * 2**20


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("loop-1M-too-small", "more or other than one timing"),
        ("missing", "does not start with the device asked"),
    ],
)
def test_hdparms_errors_give_no_number(name, says):
    text, device = _capture(name)
    with pytest.raises(ParseError, match=says) as caught:
        hdparm.parse(text, device=device)
    assert caught.value.raw_output == text


def test_a_timing_whose_figures_disagree_is_refused():
    text, device = _capture("vlab-msc-hs")
    with pytest.raises(ParseError, match=r"contradicts 58 MB in 3\.09 s"):
        hdparm.parse(text.replace("18.78 MB/sec", "17.78 MB/sec"), device=device)


def test_the_command_quotes_the_device_and_asks_for_c_locale_figures():
    assert hdparm.read_command("/dev/disk/by-id/usb-Linux_File-Stor Gadget") == (
        "LC_ALL=C hdparm -t '/dev/disk/by-id/usb-Linux_File-Stor Gadget'"
    )
