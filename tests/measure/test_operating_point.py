"""hil.measure.operating_point on the virtual board's real snapshots (tests/data/operating_point, see
capture_vlab.py): what it reads, what counts as moved, and output it must refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.measure import operating_point
from hil.measure.operating_point import moved, parse
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "operating_point"
BOOTED = (DATA / "vlab.txt").read_text()
OFFLINE = (DATA / "vlab-cpu1-offline.txt").read_text()


def test_the_virtual_board_shows_its_cpu_and_its_nvme_link_with_aer_counters():
    point = parse(BOOTED)
    assert point.online == {"cpu1": True}
    assert point.links["0000:01:00.0"] == "2.5_GT/s_PCIe x1"  # QEMU's nvme behind its root port
    assert point.aer["0000:00:02.0 aer_dev_correctable"] == 0
    assert point.freq_khz == {} and point.temp_c == {}  # TCG has no cpufreq and no thermal zone
    assert moved(point, parse(BOOTED)) == []


def test_a_core_taken_offline_is_named():
    assert moved(parse(BOOTED), parse(OFFLINE)) == ["cpu1 went offline"]
    assert moved(parse(OFFLINE), parse(BOOTED)) == ["cpu1 went online"]


@pytest.mark.parametrize(
    ("edit", "phrase"),
    [
        (
            ("link 0000:01:00.0 2.5_GT/s_PCIe 1", "link 0000:01:00.0 2.5_GT/s_PCIe 2"),
            "link retrained 2.5 GT/s PCIe x1 -> 2.5 GT/s PCIe x2",
        ),
        (("aer_dev_correctable 0", "aer_dev_correctable 3"), "PCIe 0000:00:02.0 AER correctable +3"),
        # A reading gone between snapshots is no "held" (the device left, its driver was unbound).
        (("link 0000:01:00.0 2.5_GT/s_PCIe 1\n", ""), "PCIe 0000:01:00.0 link gone (2.5 GT/s PCIe x1)"),
        (("aer 0000:00:02.0 aer_dev_fatal 0\n", ""), "PCIe 0000:00:02.0 AER fatal no longer read"),
    ],
)
def test_what_moves_after_the_first_snapshot_is_named(edit, phrase):
    """Variations built from the real snapshot: the second one has the line changed."""
    after = parse(BOOTED.replace(*edit))
    assert any(phrase in change for change in moved(parse(BOOTED), after)), moved(parse(BOOTED), after)


def test_a_clock_that_moved_more_than_rounding_and_a_throttle_count_are_named():
    lines = "freq cpu0 1800000\nthrottle cpu0 core_throttle_count 4\ntemp thermal_zone0 soc-thermal 51000\n"
    before = parse(lines + BOOTED)
    same = parse(lines.replace("1800000", "1799000") + BOOTED)
    after = parse(lines.replace("1800000", "1200000").replace("count 4", "count 6") + BOOTED)
    assert before.temp_c == {"thermal_zone0 soc-thermal": 51.0}
    assert moved(before, same) == []
    assert moved(before, after) == ["cpu0 clock moved 1800 -> 1200 MHz", "cpu0 core_throttle +2"]
    # a counter that went down (a reset) and a clock no longer read are moves too
    fewer = parse("throttle cpu0 core_throttle_count 1\n" + BOOTED)
    assert moved(before, fewer) == ["cpu0 clock no longer read", "cpu0 core_throttle went down 4 -> 1"]


def test_a_zone_below_freezing_is_read_not_refused():
    point = parse("temp thermal_zone0 soc-thermal -12500\n" + BOOTED)
    assert point.temp_c == {"thermal_zone0 soc-thermal": -12.5}
    with pytest.raises(ParseError):
        parse("temp thermal_zone0 soc-thermal -\n" + BOOTED)


@pytest.mark.parametrize(
    "text",
    [
        BOOTED.replace("end\n", ""),  # cut before its end
        BOOTED.replace("online cpu1 1", "online cpu1"),  # a field missing
        BOOTED.replace("usb_resets 0", "usb_resets zero"),
        BOOTED.replace("online cpu1 1", "onlne cpu1 1"),
        BOOTED + "end\n",  # two snapshots run together
        "",
        (DATA / "pc-without-tools.txt").read_text(),  # a shell that lacks grep: "usb_resets " has no count
    ],
)
def test_output_that_is_not_a_whole_snapshot_is_refused(text):
    with pytest.raises(ParseError):
        parse(text)


def test_the_summary_names_each_move_with_its_sample_and_where_the_clock_and_heat_stood():
    from hil.verdict.measurement import Observed, OperatingPointChange
    from hil.verdict.result import Sample

    def sample(moved, khz, temp):
        change = OperatingPointChange("rc", moved, temp_c={"thermal_zone0 soc": temp}, freq_khz={"cpu0": khz})
        return Sample(1.0, 0.0, 0.1, observed=Observed(operating_point=change))

    line, moves = operating_point.summary([sample([], 1800000, 45.0), sample(["cpu1 went offline"], 1200000, 51.2)])
    # cpu0's clock stood elsewhere after sample 2 without moving within it: it moved between the samples
    assert moves == ["sample 2: cpu1 went offline", "between samples 1 and 2: cpu0 clock moved 1800 -> 1200 MHz"]
    assert line == "rc: clock 1200-1800 MHz, hottest zone 45-51 C, moved 2 time(s) over 2 samples"
    assert operating_point.summary([Sample(1.0, 0.0, 0.1)]) is None
    # A clock that stepped down between two samples, within neither: the samples stood at two operating points.
    line, moves = operating_point.summary([sample([], 1800000, 45.0), sample([], 1200000, 45.5)])
    assert moves == ["between samples 1 and 2: cpu0 clock moved 1800 -> 1200 MHz"]
    assert line == "rc: clock 1200-1800 MHz, hottest zone 45-46 C, moved 1 time(s) over 2 samples"
    held = [
        sample([], 1800000, 45.0),
        sample([], 1810000, 45.0),
        sample(["cpu0 clock moved 1810 -> 1200 MHz"], 1200000, 45),
    ]
    assert operating_point.summary(held)[1] == ["sample 3: cpu0 clock moved 1810 -> 1200 MHz"]  # named once, within it


def test_usb_resets_are_read_but_not_a_move():
    """libmtp resets the device after every MTP copy: a reset the check caused is no change of the board."""
    after = parse(BOOTED.replace("usb_resets 0", "usb_resets 2"))
    assert after.usb_resets == 2 and moved(parse(BOOTED), after) == []
