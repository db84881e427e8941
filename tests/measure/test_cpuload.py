"""Per-CPU load from real /proc/stat snapshots (tests/data/procstat, captured while dd kept a CPU busy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.measure.cpuload import CpuShare, cpu_load, parse_stat, saturated
from hil.verdict.errors import ParseError
from hil.verdict.measurement import CpuLoad

DATA = Path(__file__).resolve().parents[1] / "data" / "procstat"


def _snap(name: str) -> dict:
    return parse_stat((DATA / f"{name}.txt").read_text())


def test_every_cpu_line_is_read_and_the_shares_add_up():
    before, after = _snap("pc-before"), _snap("pc-after")
    assert set(before) == set(after) and "cpu" in before and "cpu0" in before
    shares = cpu_load(before, after)
    for share in shares.values():
        total = share.user + share.system + share.irq + share.softirq + share.iowait + share.idle
        assert 97.0 <= total <= 100.5  # steal is not shown; rounding to 0.1
    # dd kept one of the PC's CPUs busy while the snapshots were taken: the machine was not idle.
    assert max(s.busy for name, s in shares.items() if name != "cpu") > 50


def test_a_core_drowning_in_interrupts_is_named_first():
    shares = {
        "cpu": CpuShare(user=5, system=10, irq=20, softirq=27, iowait=0, idle=38),
        "cpu0": CpuShare(user=10, system=20, irq=0, softirq=2, iowait=0, idle=68),
        "cpu1": CpuShare(user=0, system=0, irq=40, softirq=55, iowait=0, idle=5),
    }
    assert saturated(shares) == ["cpu1: irq+softirq 95%"]


@pytest.mark.parametrize(
    "text",
    ["", "intr 1 2 3\n", "cpu  1 2 3 4 5 6 7\n", "cpu  1 2 3 4\ncpu0 1 2 x 4\n", "cpu 1 2 3 4\ncpu0 ٣ 2 3 4\n"],
    ids=["empty", "no-cpu", "total-only", "not-a-number", "unicode-digit"],
)
def test_output_that_is_not_proc_stat_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_stat(text)


def test_counters_that_went_backwards_are_an_error_not_a_negative_share():
    before, after = _snap("pc-before"), _snap("pc-after")
    with pytest.raises(ParseError, match="went backwards"):
        cpu_load(after, before)


def test_a_sample_that_took_no_clock_tick_has_no_busiest_core():
    # Two equal snapshots (an instant sample: a CI run's scripted Measurement) give no shares, hence no figure.
    same = {"cpu": (1, 2, 3, 4, 0, 0, 0, 0), "cpu0": (1, 2, 3, 4, 0, 0, 0, 0)}
    assert cpu_load(same, same) == {}
    assert CpuLoad("board", cpu_load(same, same)).busiest is None


def test_the_busiest_core_is_a_core_when_there_is_one_else_the_total():
    before, after = _snap("pc-before"), _snap("pc-after")
    shares = cpu_load(before, after)
    assert CpuLoad("pc", shares).busiest == max(s.busy for name, s in shares.items() if name != "cpu")
    assert CpuLoad("pc", {"cpu": shares["cpu"]}).busiest == shares["cpu"].busy


def test_a_core_lost_from_one_snapshot_is_no_load_at_all():
    # Built from the real snapshots: cpu1 at 100% softirq in between, and its line lost from the second
    # (a kernel message printed over it): before the cores were checked against the total, the busiest core
    # then read as cpu0's share, and the saturated core was not there at all.
    before, after = _snap("pc-before"), _snap("pc-after")
    total = list(after["cpu"])
    total[6] += 500  # cpu1's softirq ticks during the sample, in the total only
    after = {"cpu": tuple(total), "cpu0": after["cpu0"]}
    with pytest.raises(ParseError, match="cpu1 in one snapshot only"):
        cpu_load(before, after)


def test_a_core_line_cut_by_a_kernel_message_is_refused():
    text = (DATA / "pc-after.txt").read_text()
    cut = text.replace("cpu1 130768 0 18451 380959 ", "cpu1 130768 0 18451 380959[  12.345678] usb 1-1: reset\n")
    with pytest.raises(ParseError, match="kernel message"):
        parse_stat(cut)
