"""Ceilings reproduce the seed documents' tables (the figures are quoted in the comments)."""

from __future__ import annotations

import pytest

from hil.verdict.ceilings import (
    Transfer,
    UsbSpeed,
    convert,
    pcie_bandwidth,
    pcie_ceiling,
    usb_ceiling,
    usb_ethernet_ceiling,
    usb_frame_rate_ceiling,
    usb_interrupt_ceiling,
    usb_isochronous_ceiling,
    usb_practical,
)

# --- USB: seed 000 (Rockchip USB Performance Analysis Guide), table 1-2 "USB 的四种传输类型" ----------


def test_usb2_bulk_is_13_packets_of_512_bytes_per_microframe():
    # Table 1-2, USB 2.0 bulk: "Max Packet: 512Bytes ... Max Transfer Speed: 53.25MBps"
    c = usb_ceiling(UsbSpeed.HIGH, Transfer.BULK)
    assert c.unit == "MB/s"
    assert c.value == pytest.approx(13 * 512 * 8000 / 1e6)  # 53.248
    assert c.value == pytest.approx(53.25, abs=0.005)
    assert "13 × 512 B" in c.basis and "53.248 MB/s" in c.basis


@pytest.mark.parametrize("transfer", [Transfer.INTERRUPT, Transfer.ISOCHRONOUS])
def test_usb2_periodic_is_3_x_1024_bytes_per_microframe(transfer):
    # Table 1-2, USB 2.0 interrupt and isochronous: "1024 ×3 Bytes ... 23.44MBps". 3 × 1024 B × 8000/s
    # is 24.576 MB/s, which is 23.44 MiB/s: the seed's figure is binary, the ceiling is kept in MB/s.
    c = usb_ceiling("high", transfer)
    assert c.value == pytest.approx(24.576)
    assert convert(c.value, "MB/s", "MiB/s") == pytest.approx(23.44, abs=0.005)
    assert "per endpoint" in c.basis


def test_usb3_isochronous_is_16_bursts_of_3_x_1024_bytes():
    # Table 1-2, USB 3.0 isochronous: "1024 ×16 × 3Bytes ... 375.04MBps" (= 375.0 MiB/s)
    c = usb_ceiling(UsbSpeed.SUPER, Transfer.ISOCHRONOUS)
    assert c.value == pytest.approx(393.216)
    assert convert(c.value, "MB/s", "MiB/s") == pytest.approx(375.04, abs=0.05)


def test_usb3_bulk_ceiling_is_the_8b10b_line_rate_and_400_is_informative():
    # Table 1-2, USB 3.0 bulk: "Max Transfer Speed: 400MBps？" (with a question mark). The hard bound is
    # 5 Gb/s × 8/10 / 8 = 500 MB/s; 400 MB/s is kept as the practical figure.
    c = usb_ceiling(UsbSpeed.SUPER, Transfer.BULK)
    assert c.value == pytest.approx(500.0)
    assert "8b/10b" in c.basis
    practical = usb_practical(UsbSpeed.SUPER)
    assert practical is not None and practical.value == pytest.approx(400.0)


def test_rockchip_dwc2_practical_bulk_figure():
    # Seed 000, MTP section: "USB2.0 控制器的批量传输速率约为 39MBps（每 125 微秒传 10 个 transaction，
    # 即 10 × 512 Bytes）": 10 × 512 B × 8000/s = 40.96 MB/s = 39.06 MiB/s. Informative only: the ceiling
    # stays 53.248.
    practical = usb_practical("high", "bulk")
    assert practical is not None
    assert practical.value == pytest.approx(40.96)
    assert convert(practical.value, "MB/s", "MiB/s") == pytest.approx(39.0, abs=0.1)
    assert practical.value < usb_ceiling("high").value
    assert usb_practical("full") is None


def test_full_speed():
    # USB 1.1 (table "USB 1.1 12Mbps 全速"): bulk 19 × 64 B per 1 ms frame
    assert usb_ceiling(UsbSpeed.FULL, Transfer.BULK).value == pytest.approx(1.216)
    assert usb_ceiling(UsbSpeed.FULL, Transfer.ISOCHRONOUS).value == pytest.approx(1.023)
    assert usb_ceiling(UsbSpeed.FULL, Transfer.INTERRUPT).value == pytest.approx(0.064)


def test_every_ceiling_lies_below_the_raw_signalling_rate():
    raw = {UsbSpeed.FULL: 12e6 / 8 / 1e6, UsbSpeed.HIGH: 480e6 / 8 / 1e6, UsbSpeed.SUPER: 5e9 / 8 / 1e6}
    for speed in UsbSpeed:
        for transfer in Transfer:
            assert usb_ceiling(speed, transfer).value <= raw[speed]


@pytest.mark.parametrize(
    ("given", "expected"), [("480", UsbSpeed.HIGH), (5000, UsbSpeed.SUPER), ("Full", UsbSpeed.FULL)]
)
def test_speed_parses_names_and_sysfs_figures(given, expected):
    assert UsbSpeed.parse(given) is expected


def test_unknown_speed_and_transfer_are_named():
    with pytest.raises(ValueError, match="'10000'"):
        usb_ceiling("10000")
    with pytest.raises(ValueError, match="'control'"):
        usb_ceiling("high", "control")


# --- USB Ethernet --------------------------------------------------------------------------------------


def test_usb2_gadget_nic_is_bounded_by_the_bulk_ceiling():
    # An ECM/NCM/RNDIS gadget has no PHY: 53.248 MB/s × 8 = 425.984 Mbit/s.
    c = usb_ethernet_ceiling("high")
    assert (c.value, c.unit) == (pytest.approx(425.984), "Mbit/s")


def test_gigabit_adapter_on_usb2_is_bounded_by_usb_not_the_phy():
    c = usb_ethernet_ceiling(UsbSpeed.HIGH, link_mbit=1000)
    assert c.value == pytest.approx(425.984)
    assert "1000 Mbit/s link" in c.basis


def test_fast_ethernet_adapter_is_bounded_by_its_link():
    # Seed 000 §2.2: a CISCO USB 2.0 (100 Mbit/s) adapter measures ≈ 95 Mbit/s; the ceiling is 100.
    assert usb_ethernet_ceiling("high", link_mbit=100).value == 100.0
    assert usb_ethernet_ceiling("super", link_mbit=1000).value == 1000.0


def test_link_rate_must_be_positive():
    with pytest.raises(ValueError):
        usb_ethernet_ceiling("high", link_mbit=0)


# --- PCIe: seed 002 (Rockchip Developer Guide PCIe Performance) ---------------------------------------

# §2.1 "PCIe 带宽" table, MB/s per direction. The seed writes GB/s for the larger figures.
SEED_002_BANDWIDTH = {
    (1, 1): 250, (1, 2): 500, (1, 4): 1000, (1, 8): 2000,
    (2, 1): 500, (2, 2): 1000, (2, 4): 2000, (2, 8): 4000,
    (3, 1): 984.6, (3, 2): 1969, (3, 4): 3938, (3, 8): 7877,
    (4, 1): 1969, (4, 2): 3938, (4, 4): 7877, (4, 8): 15754,
}  # fmt: skip


@pytest.mark.parametrize(("gen", "lanes"), list(SEED_002_BANDWIDTH))
def test_pcie_bandwidth_reproduces_seed_002_table_2_1(gen, lanes):
    assert pcie_bandwidth(gen, lanes) == pytest.approx(SEED_002_BANDWIDTH[gen, lanes], rel=5e-4)
    c = pcie_ceiling(gen, lanes)
    assert c.value == pcie_bandwidth(gen, lanes) and c.unit == "MB/s"


# §2.2 "PCIe TLP 损耗", Gen3 after TLP overhead: "256B payload 扣除 TLP 损耗 (256/284) 887.5MB/s 1.775GB/s
# 3.550GB/s 7.1002GB/s" and "128B payload (128/156) 807.8MB/s 1.616GB/s 3.232GB/s 6.464GB/s".
# The seed rounds loosely (807.89 is printed 807.8, 6463.1 as 6.464), hence rel=2e-4.
SEED_002_TLP = {
    (256, 1): 887.5, (256, 2): 1775, (256, 4): 3550, (256, 8): 7100.2,
    (128, 1): 807.8, (128, 2): 1616, (128, 4): 3232, (128, 8): 6464,
}  # fmt: skip


@pytest.mark.parametrize(("payload", "lanes"), list(SEED_002_TLP))
def test_pcie_gen3_tlp_overhead_reproduces_seed_002_table_2_2(payload, lanes):
    c = pcie_ceiling(3, lanes, payload=payload)
    assert c.value == pytest.approx(SEED_002_TLP[payload, lanes], rel=2e-4)
    assert f"{payload}/{payload + 28}" in c.basis


def test_pcie_basis_names_generation_lanes_and_encoding():
    basis = pcie_ceiling(3, 4, payload=256).basis
    assert "Gen3 x4" in basis and "128b/130b" in basis and "28 B TLP overhead" in basis
    assert "8b/10b" in pcie_ceiling(2, 1).basis


def test_seed_002_measurements_stay_below_their_ceilings():
    # §4.3.2 RK3588 Gen3x4 DMA write 4MB 3066.1 MB/s; §4.3.1 RK3568 Gen3x2 write 1454.3 MB/s;
    # §4.3.3 RK3588 at Gen2x1 427.3 MB/s. All sit under the 256 B payload ceilings.
    assert pcie_ceiling(3, 4, payload=256).value > 3066.1
    assert pcie_ceiling(3, 2, payload=256).value > 1454.3
    assert pcie_ceiling(2, 1, payload=256).value > 427.3


def test_pcie_x16():
    assert pcie_bandwidth(4, 16) == pytest.approx(16e9 * 128 / 130 * 16 / 8 / 1e6)


@pytest.mark.parametrize(("gen", "lanes", "payload"), [(5, 1, None), (3, 3, None), (3, 1, 100)])
def test_pcie_rejects_unknown_parameters(gen, lanes, payload):
    with pytest.raises(ValueError):
        pcie_ceiling(gen, lanes, payload=payload)


# --- USB HID: one interrupt endpoint (seed 000 "USB Gadget HID 传输速率分析") -------------------------


@pytest.mark.parametrize(
    ("speed", "report", "interval_s", "kb_s"),
    [
        ("high", 512, 1e-3, 512.0),  # seed case 1: 512 B every 1 ms (the rk3188 reached 125 and 249 kB/s)
        ("high", 512, 125e-6, 4096.0),  # seed case 2: 512 B every 125 µs (2659 and 872 kB/s measured)
        ("high", 1024, 125e-6, 8192.0),  # the largest high-speed interrupt packet every microframe
        ("super", 1024, 1e-3, 1024.0),
        ("full", 512, 1e-3, 64.0),  # 64 B packets: a 512 B report takes 8 frames
        ("full", 64, 1e-3, 64.0),
        ("high", 1500, 125e-6, 6000.0),  # two packets per report: 1500 B per 250 µs
    ],
)
def test_hid_interrupt_ceiling_is_one_packet_per_interval(speed, report, interval_s, kb_s):
    ceiling = usb_interrupt_ceiling(speed, report, interval_s)
    assert ceiling.unit == "kB/s"
    assert ceiling.value == pytest.approx(kb_s)
    assert f"{kb_s:.3f} kB/s" in ceiling.basis
    # Never above what the bus gives one interrupt endpoint (3 × 1024 B per microframe, high bandwidth).
    assert convert(ceiling.value, "kB/s", "MB/s") <= usb_ceiling(speed, Transfer.INTERRUPT).value


def test_hid_interval_below_the_speed_s_shortest_is_refused():
    with pytest.raises(ValueError, match="shortest full-speed"):
        usb_interrupt_ceiling("full", 64, 125e-6)


def test_hid_rule_reads_report_and_interval_from_the_case():
    from types import SimpleNamespace

    from hil.catalogue.ceilings import UsbInterrupt, interval_seconds

    link = SimpleNamespace(type="usb", speed="high")
    assert UsbInterrupt().ceiling(link, {"report": 1024, "interval": "1ms"}).value == pytest.approx(1024.0)
    assert UsbInterrupt().ceiling(link, {"report": 512, "interval": "125us"}).value == pytest.approx(4096.0)
    assert UsbInterrupt().ceiling(SimpleNamespace(type="pcie"), {"report": 512, "interval": "1ms"}) is None
    assert (interval_seconds("125us"), interval_seconds("8ms")) == (125e-6, 8e-3)
    with pytest.raises(ValueError, match="1ms or 125us"):
        interval_seconds("1 ms")


# --- UVC frame rates: seed 000 tables 3-3 to 3-5 (RV1108, YUYV 640x480 per isochronous setting) ------------


@pytest.mark.parametrize(
    ("per_microframe", "seed_fps", "ceiling_fps"),
    [(1024, 12, 40 / 3), (2048, 24, 80 / 3), (3072, 30, 40)],
    ids=["table 3-3 iso1024", "table 3-4 iso2048", "table 3-5 iso3072"],
)
def test_a_yuyv_frame_rate_ceiling_is_the_isochronous_bytes_over_the_frame(per_microframe, seed_fps, ceiling_fps):
    # 1024 B per 125 µs is 8.192 MB/s; a 640x480 YUYV frame is 614400 B: 13.33 fps at most, and the seed
    # measured 12. Each of its figures lies under the ceiling hil derives (at 3 KiB the camera's own 30 fps).
    transport = usb_isochronous_ceiling("high", per_microframe)
    assert transport.value == pytest.approx(per_microframe * 8000 / 1e6)
    frames = usb_frame_rate_ceiling(transport, "yuyv", 640, 480)
    assert frames is not None and frames.unit == "fps"
    assert frames.value == pytest.approx(ceiling_fps)
    assert seed_fps < frames.value
    assert f"{per_microframe} B per 125 µs" in frames.basis and "614400 B" in frames.basis


def test_a_compressed_stream_has_no_frame_rate_ceiling_of_its_own():
    assert usb_frame_rate_ceiling(usb_ceiling("high", practical=False), "mjpeg", 1920, 1080) is None


@pytest.mark.parametrize(("speed", "payload"), [("high", 4096), ("full", 1024), ("super", 0)])
def test_an_isochronous_payload_the_speed_cannot_carry_is_refused(speed, payload):
    with pytest.raises(ValueError, match="is not an isochronous payload"):
        usb_isochronous_ceiling(speed, payload)


@pytest.mark.parametrize(
    ("speed", "per_interval", "interval", "mb_s", "period"),
    [
        # USB 2.0 §9.6.6: a high-speed isochronous endpoint is serviced every 2^(bInterval-1) microframes.
        ("high", 1024, 1, 8.192, "125 µs"),
        ("high", 1024, 4, 1.024, "8 × 125 µs"),  # every 1 ms: an eighth of table 3-3's 7.8 MB
        ("high", 1024, 16, 1024 / (2**15 * 125e-6) / 1e6, "32768 × 125 µs"),  # 250 B/s, the longest period
        # Full speed: every 2^(bInterval-1) 1 ms frames, at most 1023 B each.
        ("full", 1023, 2, 0.5115, "2 × 1000 µs"),
        # USB 3.0 §9.6.7: bursts of bMaxBurst+1 packets of Mult+1 × 1024 B per service interval; maxburst 15 at
        # 3 KiB is the whole 375.04 MiB/s of seed 000 table 1-2 (3 × 1024 × 16 B per 125 µs = 393.216 MB/s).
        ("super", 3 * 1024 * 16, 1, 393.216, "125 µs"),
        ("super", 1024 * 16, 3, 32.768, "4 × 125 µs"),
    ],
)
def test_an_isochronous_endpoint_moves_its_bytes_per_service_interval_over_the_interval_s_period(
    speed, per_interval, interval, mb_s, period
):
    ceiling = usb_isochronous_ceiling(speed, per_interval, interval)
    assert ceiling.value == pytest.approx(mb_s)
    assert f"{per_interval} B per {period} interval" in ceiling.basis
    assert ceiling.value <= usb_ceiling(speed, Transfer.ISOCHRONOUS).value * (1 + 1e-9)


@pytest.mark.parametrize("interval", [0, 17])
def test_an_isochronous_interval_outside_1_to_16_is_refused(interval):
    with pytest.raises(ValueError, match=rf"bInterval {interval} is not 1\.\.16"):
        usb_isochronous_ceiling("high", 1024, interval)


def test_the_uvc_frame_rule_reads_the_service_interval_and_the_super_speed_burst():
    from types import SimpleNamespace

    from hil.catalogue.ceilings import UsbFrames

    rule = UsbFrames(transfer_param="transfer")
    high, super_ = SimpleNamespace(type="usb", speed="high"), SimpleNamespace(type="usb", speed="super")
    case = {"stream": "yuyv-640x480", "transfer": "iso1024"}
    # 1024 B per microframe over a 614400 B frame: 13.33 fps (table 3-3); at interval 4 an eighth of it.
    assert rule.ceiling(high, case).value == pytest.approx(40 / 3)
    assert rule.ceiling(high, {**case, "streaming_interval": 4}).value == pytest.approx(40 / 3 / 8)
    # 16 packets of 1024 B per 125 µs at super speed (maxburst 15); the burst is super speed's alone.
    burst = {**case, "streaming_maxburst": 15, "streaming_interval": 1}
    assert rule.ceiling(super_, burst).value == pytest.approx(16 * 40 / 3)
    assert rule.ceiling(high, burst).value == pytest.approx(40 / 3)
    # Bulk has no service interval: its bound is the bus's.
    bulk = rule.ceiling(high, {"stream": "yuyv-640x480", "transfer": "bulk"})
    assert bulk.value == pytest.approx(53.248e6 / 614400)


def test_the_practical_figure_is_shown_beside_the_limit_not_instead_of_it():
    # Seed 000 gives ~400 MB/s for SuperSpeed bulk in practice: the report shows it in the ceiling's basis.
    c = usb_ceiling("super")
    assert c.value == pytest.approx(500.0)
    assert "in practice ≈ 400.0 MB/s" in c.basis
    assert "in practice" not in usb_ceiling("super", practical=False).basis
