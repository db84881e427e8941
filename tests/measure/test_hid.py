"""hid_throughput's result line, from real runs of hil/tools/hid_throughput.c on the virtual board's HID
gadget (tests/data/hid/capture.py; each NAME.source names the command and the one run beside it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.lab.usb_gadget.gadget import Hid
from hil.measure import hid
from hil.measure.parsing import PARSERS
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "hid"


def _read(name: str) -> str:
    return (DATA / f"{name}.txt").read_text()


def _asked(name: str) -> dict[str, object]:
    source = dict(line.split(": ", 1) for line in (DATA / f"{name}.source").read_text().splitlines())
    return hid.asked(source["command"])


def test_the_parser_joins_the_registry():
    assert PARSERS["hil.measure.hid.parse"].data == "hid"


@pytest.mark.parametrize(
    ("name", "mode", "size"),
    [
        ("in-512", "read", 512),
        ("in-1024", "read", 1024),
        ("out-512", "read", 512),
        ("out-1024", "read", 1024),
        ("in-512-writer", "write", 512),
        ("in-1024-writer", "write", 1024),
    ],
)
def test_real_runs_parse_to_what_they_were_asked(name, mode, size):
    asked = _asked(name)
    assert asked == {"mode": mode, "report_bytes": size, "count": 200}
    run = hid.parse(_read(name), **asked)
    assert (run.mode, run.report_bytes, run.first + run.timed_reports) == (mode, size, 199)
    assert run.reports + run.lost == 200
    printed = float(_read(name).rsplit("kB_s=", 1)[1])
    assert run.kb_per_s == pytest.approx(printed, abs=0.0005)
    assert run.reports_per_s == pytest.approx(run.kb_per_s * 1000 / size)


def test_the_reader_times_what_the_writer_sent():
    # A gadget write completes only when the host controller took the report: the reader's clock over
    # the report numbers agrees with the writer's own timing of the same 200 reports.
    reader = hid.parse(_read("in-1024"), **_asked("in-1024"))
    writer = hid.parse(_read("in-1024-writer"), **_asked("in-1024-writer"))
    assert reader.kb_per_s == pytest.approx(writer.kb_per_s, rel=0.05)


def test_reports_the_reader_never_saw_are_counted_and_the_rate_spans_the_numbers_it_saw():
    # The writer sent 200 of the 300 numbers the reader waits for, then the reader was ended with TERM,
    # as hil.measure.hid ends one whose last reports the host's hidraw queue dropped.
    run = hid.parse(_read("in-512-tail-missing"), **_asked("in-512-tail-missing"))
    assert (run.reports, run.first, run.timed_reports, run.lost) == (200, 0, 199, 100)


def test_a_reader_that_starts_late_times_from_the_first_report_it_sees():
    # The writer started a second before the reader: hidraw dropped what came while nobody had it open.
    run = hid.parse(_read("in-512-late-reader"), **_asked("in-512-late-reader"))
    assert run.first == run.lost > 0
    assert run.first + run.timed_reports == 199


def test_a_run_that_ran_out_of_time_is_no_measurement():
    with pytest.raises(ParseError, match="moved 0 of the 200 reports"):
        hid.parse(_read("in-512-nothing-sent"), **_asked("in-512-nothing-sent"))


@pytest.mark.parametrize("name", ["missing-device", "bad-report-size"])
def test_a_refused_run_has_no_result_line(name):
    with pytest.raises(ParseError, match="no result line"):
        hid.parse(_read(name), **_asked(name))


def test_a_report_of_the_wrong_size_ends_the_run():
    # The gadget sends 1024 B reports to a reader that expects 512: its line shows nothing timed.
    assert "returned 513 bytes, expected 512" in _read("in-1024-read-as-512")
    with pytest.raises(ParseError, match="moved 0 of the 200"):
        hid.parse(_read("in-1024-read-as-512"), **_asked("in-1024-read-as-512"))


def test_another_run_than_asked_is_refused():
    with pytest.raises(ParseError, match="another run"):
        hid.parse(_read("in-512"), mode="read", report_bytes=1024, count=200)
    with pytest.raises(ParseError, match="another run"):
        hid.parse(_read("in-512"), mode="write", report_bytes=512, count=200)
    with pytest.raises(ParseError, match="moved 200 of the 1000"):
        hid.parse(_read("in-512"), mode="read", report_bytes=512, count=1000)


def test_a_rate_that_contradicts_bytes_and_time_is_refused():
    text = _read("in-1024").replace("kB_s=", "kB_s=1")
    with pytest.raises(ParseError, match="contradicts"):
        hid.parse(text, **_asked("in-1024"))


def test_a_damaged_last_line_does_not_fall_back_to_an_earlier_one():
    text = _read("out-512")
    last = text.rstrip("\n").rsplit("\n", 1)[1]
    with pytest.raises(ParseError, match="incomplete"):
        hid.parse(text + last[: len(last) // 2] + "\n", **_asked("out-512"))


def test_commands_are_quoted_and_hidraw_writes_carry_a_report_number():
    assert hid.command("write", "/dev/hidraw0", report_bytes=512, count=10, timeout_s=5, hidraw=True) == (
        "hid_throughput write /dev/hidraw0 512 10 5 hidraw"
    )
    assert hid.command("read", "/dev/hid g0;x", report_bytes=64, count=2, timeout_s=1, hidraw=False) == (
        "hid_throughput read '/dev/hid g0;x' 64 2 1"
    )
    with pytest.raises(ValueError, match="mode"):
        hid.command("copy", "/dev/hidg0", report_bytes=64, count=2, timeout_s=1, hidraw=False)


@pytest.mark.parametrize("size", [512, 1024])
def test_the_report_descriptor_declares_one_vendor_report_each_way_of_the_length(size):
    descriptor = Hid(report_length=size).report_descriptor()
    assert descriptor[:3] == bytes([0x06, 0x00, 0xFF])  # vendor-defined usage page
    count = bytes([0x96, *size.to_bytes(2, "little")])
    assert descriptor.count(count) == 2  # input and output report, `size` fields each
    assert bytes([0x75, 0x08]) in descriptor  # of 8 bits
    assert descriptor.endswith(bytes([0xC0]))


def test_the_descriptor_is_written_as_octal_escapes_never_as_raw_bytes():
    commands = Hid(report_length=512).attribute_commands("/sys/kernel/config/usb_gadget/hil/functions/hid.0")
    assert "printf '%s\\n' 512 > /sys/kernel/config/usb_gadget/hil/functions/hid.0/report_length" in commands
    written = commands[-1]
    assert written.startswith("printf '\\006\\000\\377\\011\\001")
    assert written.endswith("\\300' > /sys/kernel/config/usb_gadget/hil/functions/hid.0/report_desc")
    assert written.isascii()


def test_a_report_longer_than_one_interrupt_packet_is_refused():
    with pytest.raises(ValueError, match=r"1\.\.1024"):
        Hid(report_length=2048)
