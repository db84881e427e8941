"""What each diagnosis step concludes from its figures: which layer loses the rate, in one line.
The figures come from the probes' parsers (tests/diagnose/test_probes.py); here the conclusions drawn from them."""

from __future__ import annotations

from pathlib import Path

from hil.diagnose import network, pcie, probes
from hil.diagnose.pcie import tlp_lines
from hil.diagnose.steps import operating_point_line
from hil.diagnose.storage import requests_line, where
from hil.lab.pcie.link import TrainedLink
from hil.lab.pcie.payload import parse_config
from hil.lab.storage.queue import BlockQueue
from hil.measure import board_state, operating_point, pcie_dmatest
from hil.verdict.measurement import CpuShare

DATA = Path(__file__).resolve().parents[1] / "data" / "operating_point"
TESTDATA = DATA.parent


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


def test_the_same_disk_faster_on_the_lab_pc_puts_the_loss_on_the_boards_path():
    [line] = where({"raw": 90.0, "pc": 380.0}, "read")
    assert line == (
        "the same disk on the lab PC reads 380 MB/s, on the board 90: the board's path loses the rate "
        "(its controller, driver, PHY)"
    )


def test_the_same_disk_no_faster_on_the_lab_pc_is_the_limit():
    [line] = where({"raw": 80.0, "pc": 85.0}, "write")
    assert line == "the same disk on the lab PC writes only 85 MB/s, on the board 80: the disk bounds the rate"


def test_layers_within_the_spread_say_nothing():
    assert where({"raw": 41.0, "file system": 38.0, "far": 55.0, "pc": 55.0}, "read") == []


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


def udp(in_datagrams: int, rcvbuf_errors: int) -> dict[str, int]:
    counters = probes.parse_snmp((TESTDATA / "diagnose" / "snmp.txt").read_text())
    return {**counters, "InDatagrams": in_datagrams, "RcvbufErrors": rcvbuf_errors}


def test_datagrams_a_full_socket_buffer_dropped_put_the_loss_in_the_receiving_socket():
    line = network.socket_line(udp(1000, 0), udp(1871, 5121), {"rmem_default": "4096", "rmem_max": "4096"}, 5121)
    assert line == (
        "the receiving sockets dropped 5121 datagrams for a full buffer (RcvbufErrors), 871 were read "
        "(net.core.rmem_default 4096, rmem_max 4096); the run lost 5121: "
        "the loss is in the receiving socket, not on the link"
    )


def test_a_few_drops_that_are_all_the_loss_put_it_in_the_socket():
    # CI's run of 2026-11-29: a slow sender, 6 datagrams dropped of 1403, and they were the whole loss
    line = network.socket_line(udp(1000, 0), udp(2397, 6), {"rmem_default": "4096", "rmem_max": "212992"}, 6)
    assert line.endswith("; the run lost 6: the loss is in the receiving socket, not on the link")


def test_a_socket_that_kept_up_is_not_blamed():
    line = network.socket_line(udp(1000, 3), udp(9000, 4), {"rmem_default": "212992", "rmem_max": "212992"}, 400)
    assert line.endswith(
        "dropped 1 datagrams for a full buffer (RcvbufErrors), 8000 were read "
        "(net.core.rmem_default 212992, rmem_max 212992); the run lost 400: the loss is not the socket's"
    )


def snapshot_with_net_rx(counts: tuple[int, ...], rps: str) -> dict[str, str]:
    sections = board_state.parse((TESTDATA / "diagnose" / "snapshot-lo.txt").read_text(), "before")
    softirqs = sections["/proc/softirqs"].splitlines()
    softirqs = [line if "NET_RX:" not in line else "NET_RX: " + " ".join(map(str, counts)) for line in softirqs]
    return {"/proc/softirqs": "\n".join(softirqs), "/sys/class/net/usb0/queues/rx-0/rps_cpus": rps}


def test_a_receive_path_held_on_a_saturated_core_without_rps_is_named():
    before, after = snapshot_with_net_rx((100, 100), "0"), snapshot_with_net_rx((9100, 300), "0")
    shares = {"cpu0": CpuShare(user=2, system=10, irq=8, softirq=78, iowait=0, idle=2)}
    line = network.receive_path_line("usb0", before, after, shares)
    assert line.startswith("the receive path (NET_RX softirqs) ran on cpu0 98%, cpu1 2%; RPS of usb0: off (rx-0 0)")
    assert line.endswith(
        "it is held on cpu0, busy 98% (irq+softirq 86%); RPS (rps_cpus) or the interrupt's affinity can spread it"
    )


def test_a_receive_path_spread_by_rps_is_only_described():
    before, after = snapshot_with_net_rx((100, 100), "2"), snapshot_with_net_rx((4100, 4100), "2")
    shares = {"cpu0": CpuShare(user=50, system=45, irq=0, softirq=0, iowait=0, idle=5)}
    line = network.receive_path_line("usb0", before, after, shares)
    assert line == "the receive path (NET_RX softirqs) ran on cpu0 50%, cpu1 50%; RPS of usb0: on (rx-0 2)"


def test_a_dma_figure_is_shown_against_the_tlp_bound_of_the_trained_link_and_the_read_back_mps():
    # A real DMA write (the RK3588 endpoint's 1 MB, tests/data/pcie_dmatest) on the Gen3 x4 link of the ROCK 5B's
    # M.2 slot at MPS 256 (the capture does not state its trained link), and the virtual board's NVMe MPS (128 B).
    log = (TESTDATA / "pcie_dmatest" / "epf-test-rk3588-rock5b-ep.txt").read_text()
    write = [line for line in log.splitlines() if "WRITE" in line and "DMA: YES" in line and "1024000 B" in line]
    mb_s = pcie_dmatest.parse_epf_test(write[0]).mb_per_s
    [line] = tlp_lines("DMA write", mb_s, TrainedLink(3, 4, 3, 4), 256)
    assert line == "DMA write 2106 MB/s is 59% of the Gen3 x4 TLP bound at MPS 256 (3550.2 MB/s)"
    config = bytes(int(word, 16) for word in (TESTDATA / "pcie_config" / "vlab-nvme-endpoint.txt").read_text().split())
    [line] = tlp_lines("DMA write", mb_s, TrainedLink(3, 2, 3, 2), parse_config("nvme", config).mps)
    assert line == (
        "DMA write 2106 MB/s is 130% of the Gen3 x2 TLP bound at MPS 128 (1615.8 MB/s): above it: the transfer "
        "did not take this link at this MPS (its timing, or another link)"
    )
    [line] = tlp_lines("DMA write", 1500.0, TrainedLink(3, 2, 3, 2), 128)
    assert line.endswith("(1615.8 MB/s): at the link's bound (more needs a faster or wider link, or a larger MPS)")


def test_a_slow_dma_on_a_link_trained_below_its_device_names_both():
    lines = tlp_lines("DMA read", 210.0, TrainedLink(2, 1, 3, 2), 256)
    assert lines == [
        "DMA read 210 MB/s is 47% of the Gen2 x1 TLP bound at MPS 256 (450.7 MB/s): far below the link: the DMA "
        "engine, its transfer size or the memory's clocks bound it",
        "the link trained at Gen2 x1, below the Gen3 x2 its device takes",
    ]
    assert tlp_lines("DMA read", 100.0, TrainedLink(2, 1, 2, 1), None) == [
        "DMA read 100 MB/s; the endpoint has no PCIe capability: no MPS to bound it with"
    ]


def test_the_pcie_diagnosis_example_in_its_docstring_and_in_docs_is_what_it_says():
    said = tlp_lines("DMA read", 210, TrainedLink(2, 1, 2, 1), 256)[0]
    assert said.startswith("DMA read 210 MB/s is 47% of the Gen2 x1 TLP bound at MPS 256 (450.7 MB/s): far below")
    failures = (Path(__file__).resolve().parents[2] / "docs/failures.md").read_text(encoding="utf-8")
    assert said.split(": far below")[0] in (pcie.__doc__ or "") and said.split(": far below")[0] in failures
