"""What each diagnosis step concludes from its figures: which layer loses the rate, in one line.
The figures come from the probes' parsers (tests/diagnose/test_probes.py); here the conclusions drawn from them."""

from __future__ import annotations

from pathlib import Path

from hil.diagnose import probes
from hil.diagnose.storage import operating_point_line, requests_line, where
from hil.lab.storage.queue import BlockQueue
from hil.measure import operating_point

DATA = Path(__file__).resolve().parents[1] / "data" / "operating_point"


def stats(kib_per_request: float, requests: int = 64) -> tuple[probes.BlockStat, probes.BlockStat]:
    before = probes.BlockStat(read_ios=100, read_sectors=8000, write_ios=7, write_sectors=56)
    sectors = int(kib_per_request * 2 * requests)
    return before, probes.BlockStat(100 + requests, 8000 + sectors, 7, 56)


def test_max_sectors_kb_below_the_controller_is_named_as_the_cap():
    queue = BlockQueue("sda", {"max_sectors_kb": "4", "max_hw_sectors_kb": "120"})
    [line] = requests_line(queue, *stats(4), "read", "1M")
    assert line.startswith("requests averaged 4 KiB for 1024 KiB blocks (max_sectors_kb 4, controller 120)")
    assert "max_sectors_kb caps the requests" in line and "the loss is in the block layer" in line


def test_requests_at_the_controller_limit_are_not_blamed_on_the_queue():
    queue = BlockQueue("sda", {"max_sectors_kb": "120", "max_hw_sectors_kb": "120"})
    [line] = requests_line(queue, *stats(120), "read", "1M")
    assert line.endswith("the block layer passes the blocks whole")  # seed 000: 120 KB is what USB takes


def test_requests_split_below_the_block_without_a_cap():
    queue = BlockQueue("sda", {"max_sectors_kb": "1280", "max_hw_sectors_kb": "32767"})
    [line] = requests_line(queue, *stats(16), "read", "1M")
    assert line.endswith("the requests are split smaller than the blocks")


def test_no_request_counted_means_the_transfer_bypassed_the_block_layer():
    queue = BlockQueue("sda", {"max_sectors_kb": "512"})
    before, _ = stats(4)
    [line] = requests_line(queue, before, before, "write", "1M")
    assert "counted no write request" in line


def test_the_file_system_losing_against_the_raw_device_is_above_the_block_layer():
    [line] = where({"raw": 41.0, "file system": 23.0}, "read")
    assert line == "the raw device reads 41 MB/s, the file system 23: the loss is above the block layer"


def test_a_fast_far_end_and_a_slow_link_put_the_loss_between_them():
    [line] = where({"raw": 20.0, "far": 300.0}, "write")
    assert line.startswith("the board's storage writes 300 MB/s, the raw device over the link 20: the loss is between")


def test_a_far_end_no_faster_than_the_link_is_the_limit():
    [line] = where({"raw": 40.0, "far": 42.0}, "read")
    assert line.endswith("the board's storage bounds the rate")


def test_layers_within_the_spread_say_nothing():
    assert where({"raw": 41.0, "file system": 38.0, "far": 55.0}, "read") == []


def captured_point(name: str) -> operating_point.OperatingPoint:
    return operating_point.parse((DATA / f"{name}.txt").read_text())


def test_the_operating_point_of_the_virtual_board_with_a_cpu_taken_offline():
    line = operating_point_line("host", captured_point("vlab-cpu1-offline"))
    assert line == "operating point of host: cpu1 offline, no cpufreq, no thermal zone"
    assert operating_point_line("host", captured_point("vlab")) == (
        "operating point of host: no CPU offline, no cpufreq, no thermal zone"
    )


def test_the_operating_point_names_the_clocks_and_the_hottest_zone():
    # Built from the snapshot's fields: no machine here has cpufreq or a thermal zone to capture.
    point = operating_point.OperatingPoint(
        online={"cpu1": True, "cpu4": False},
        freq_khz={"cpu0": 600000, "cpu1": 1416000},
        temp_c={"thermal_zone0 soc-thermal": 71.5, "thermal_zone1 gpu-thermal": 60.0},
    )
    line = operating_point_line("device", point)
    assert line == "operating point of device: cpu4 offline, clocks 600/1416 MHz, hottest soc-thermal 72 °C"
