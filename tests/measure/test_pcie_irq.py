"""ELBI/MSI latency parser. Seed 002 gives the printing statements (§6.2, §7.2) and the results (6 µs, 2 µs) but
no log: lines here are rendered from those statements (tests/data/pcie_irq/seed-format.txt), with counts
that give the seed's results, and printk timestamps as a console shows them."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.measure import pcie_irq
from hil.measure.parsing import PARSERS
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "pcie_irq"


def _formats() -> dict[str, str]:
    formats = {}
    for line in (DATA / "seed-format.txt").read_text().splitlines():
        text = line.split('"')[1].replace("\\n", "")
        formats[text.split()[0]] = text.replace("%llu", "%d")
    return formats


def _line(kind: str, count: int, us: int, timestamp: float | None = None) -> str:
    text = _formats()[kind] % (count, us)
    return text if timestamp is None else f"[{timestamp:12.6f}] {text}"


def test_the_formats_are_the_seeds():
    assert _formats() == {"elbi": "elbi count=%d %dus", "msi": "msi count=%d %dus"}
    assert PARSERS["hil.measure.pcie_irq.parse"].data == "pcie_irq"


def test_one_line_gives_the_drivers_integer_figure():
    assert pcie_irq.parse(_line("elbi", 166666, 6)).us_per_interrupt == 6.0


def test_two_timed_lines_give_the_latency_from_counts_and_timestamps():
    text = "\n".join([_line("elbi", 166666, 6, 100.000123), _line("elbi", 333000, 6, 101.000456)])
    latency = pcie_irq.parse(text, "elbi")
    assert latency.interrupts == 333000 - 166666
    assert latency.us_per_interrupt == pytest.approx(1.000333e6 / 166334)


def test_the_kind_asked_for_is_the_one_read():
    text = "\n".join([_line("msi", 500000, 2, 50.0), _line("elbi", 166666, 6, 50.5), _line("msi", 1000000, 2, 51.0)])
    assert pcie_irq.parse(text, "msi").us_per_interrupt == pytest.approx(2.0)
    assert pcie_irq.parse(text, "elbi").us_per_interrupt == 6.0


def test_zero_interrupts_is_no_measurement():
    with pytest.raises(ParseError, match="no elbi interrupt"):
        pcie_irq.parse(_line("elbi", 0, 0))


def test_a_figure_that_contradicts_the_counts_is_refused():
    text = "\n".join([_line("msi", 500000, 2), _line("msi", 1000000, 9)])
    with pytest.raises(ParseError, match="contradicts"):
        pcie_irq.parse(text, "msi")


def test_a_wrapped_counter_is_refused():
    text = "\n".join([_line("msi", 2147000000, 2), _line("msi", -2147467296, 2)])
    with pytest.raises(ParseError, match="wrapped"):
        pcie_irq.parse(text, "msi")


def test_no_line_is_a_parse_error():
    with pytest.raises(ParseError, match="no line holding 'msi count"):
        pcie_irq.parse("rkep elbi start rk-pcie thread failed\n", "msi")


def test_non_ascii_digits_are_refused():
    with pytest.raises(ParseError):
        pcie_irq.parse("elbi count=١٦٦٦٦٦ 6us\n")


def test_a_damaged_last_line_is_refused_not_replaced_by_the_one_before():
    text = "\n".join([_line("elbi", 100000, 10, 5.0), _line("elbi", 200000, 10, 6.0).replace("200000", "2OOOOO")])
    with pytest.raises(ParseError, match="garbled line"):
        pcie_irq.parse(text, "elbi")


def test_a_single_line_whose_figure_needs_more_interrupts_than_it_counted_is_refused():
    # 6 us per interrupt is ~166,000 interrupts in the last second: a total of 5 since probe contradicts it.
    with pytest.raises(ParseError, match="needs more interrupts than the 5 counted"):
        pcie_irq.parse(_line("elbi", 5, 6), "elbi")


def test_a_last_line_ending_in_a_carriage_return_hands_over_to_no_earlier_line():
    # seed 002's printf, as in tests/data/pcie_irq/seed-format.txt; the last line's end overwritten by a CR.
    text = "[  100.000123] elbi count=166666 6us\n[  101.000456] elbi count=333000 6us\r"
    with pytest.raises(ParseError, match="garbled line"):
        pcie_irq.parse(text, "elbi")
