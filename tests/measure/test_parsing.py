"""hil.measure.parsing: the helpers every parser builds on (the fuzz harness covers the parsers themselves)."""

from __future__ import annotations

import pytest

from hil.measure.parsing import ascii_float, ascii_int, output_lines, without_kernel_messages
from hil.verdict.errors import ParseError

KERNEL_LINE = "[  123.456789] usb 1-1: new high-speed USB device number 2 using xhci_hcd"


def test_kernel_lines_are_removed_whole_with_or_without_a_level():
    text = f"first\n{KERNEL_LINE}\n<6>{KERNEL_LINE}\nlast\n"
    assert without_kernel_messages(text) == "first\nlast\n"


def test_a_kernel_line_pattern_never_runs_over_a_line_end():
    # "[" alone on a line followed by a timestamp-looking line: `\s*` once took both lines.
    text = "[\n  12.345678] not a kernel line\nkept\n"
    assert without_kernel_messages(text) == text


def test_output_lines_end_at_carriage_returns_too():
    assert output_lines("a\rb\r\nc\n", "tool") == ["a", "b", "c", ""]


def test_output_lines_drop_kernel_lines_between_lines_after_a_carriage_return():
    assert output_lines(f"a\r{KERNEL_LINE}\r\nb", "tool") == ["a", "b"]


def test_a_kernel_message_cutting_into_a_line_is_a_parse_error_with_the_raw_text():
    text = f"16777216 bytes (17{KERNEL_LINE}\n MB, 16 MiB) copied\n"
    with pytest.raises(ParseError, match="a kernel message cuts into a line") as caught:
        output_lines(text, "dd")
    assert caught.value.raw_output == text


@pytest.mark.parametrize("text", ["", "١٢", "１２", "-1", "1.0", " 1", "1" * 31])
def test_ascii_int_rejects_what_is_not_plain_ascii_digits(text):
    with pytest.raises(ParseError, match="is not a number"):
        ascii_int(text, "count", "raw")


@pytest.mark.parametrize("text", ["", "1.2.3", "nan", "inf", "-1", "1,5", "٣.٥", "1e"])
def test_ascii_float_rejects_malformed_numbers(text):
    with pytest.raises(ParseError, match="is not a number"):
        ascii_float(text, "seconds", "raw")


def test_ascii_float_rejects_an_overflowing_exponent():
    with pytest.raises(ParseError, match="is not a finite number"):
        ascii_float("1e999", "seconds", "raw")


@pytest.mark.parametrize(("text", "value"), [("3.372e-05", 3.372e-05), ("0.0354065", 0.0354065), ("2", 2.0)])
def test_ascii_float_reads_what_dd_prints(text, value):
    assert ascii_float(text, "seconds", "raw") == value
