"""The example inventories in examples/ stay valid against the schema and the catalogue."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from labgrid import Environment

from hil.catalogue import CATALOGUE
from hil.inventory.loader import load_inventory
from hil.lab.board.local import LocalShellDriver
from hil.lab.usb_host.usb_enumeration import UsbEnumerationDriver

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_rockchip_nvme_examples_load_with_their_seed_bands_and_links():
    loaded = load_inventory(EXAMPLES / "boards-rockchip.yaml")
    links = {name: (b.config.link.gen, b.config.link.lanes) for name, b in loaded.boards.items()}
    assert links == {
        "rk3588-evb1-nvme-gen3x4": (3, 4),
        "rk3568-evb1-nvme-gen3x2": (3, 2),
        "rk3588s-evb1-nvme-gen2x1": (2, 1),
        "rk3588-evb1-nvme-gen3x2": (3, 2),
        "rk3528-evb2-nvme-gen2x1": (2, 1),
        "rk3562-evb1-nvme-gen2x1": (2, 1),
        "rk3576-evb1-nvme-gen2x1": (2, 1),
    }
    rk3588 = loaded.boards["rk3588-evb1-nvme-gen3x4"].config
    assert not rk3588.link.emulated and set(rk3588.roles) == {"rc"}
    assert rk3588.metrics["nvme.seq1m_q32t1.read"].min == 2897  # 90% of seed 002's 3219.2 MB/s
    assert "3219.2 MB/s" in rk3588.metrics["nvme.seq1m_q32t1.read"].source
    # Seed 002 §8.2's seven SoC tables, one pair each: every figure's band is 90% of it.
    sections = {b.config.metrics["nvme.seq1m_q32t1.read"].source.split(",")[0] for b in loaded.boards.values()}
    assert sections == {f"seed 002 §8.2.{n}" for n in range(1, 8)}
    rk3576 = loaded.boards["rk3576-evb1-nvme-gen2x1"].config.metrics
    assert (rk3576["nvme.rnd4k_q32t1.read"].min, rk3576["nvme.rnd4k_q32t1.read_iops"].min) == (282, 70200)  # 313, 78 K


def test_usb_disk_examples_take_seed_000_s_ranges_and_rk3399_figures():
    loaded = load_inventory(EXAMPLES / "boards-usb-disk.yaml")
    assert set(loaded.boards) == {"rk3399-evb-usb2-disk", "rk3399-evb-usb3-bot-disk", "rk3399-evb-usb3-uas-disk"}
    for board, low in (
        ("rk3399-evb-usb2-disk", 25),
        ("rk3399-evb-usb3-bot-disk", 60),
        ("rk3399-evb-usb3-uas-disk", 315),
    ):
        assert _band(loaded, board, "usb.disk.write", bs="512K").low == low  # D1's ranges (UAS: 0.9x 350)
    assert _band(loaded, "rk3399-evb-usb3-bot-disk", "usb.disk.read", bs="512K").low == 74.3  # D2: 0.9x 82.6 MB/s
    assert loaded.boards["rk3399-evb-usb3-uas-disk"].config.settings["disk.protocol"] == "uas"


def test_omap_example_takes_seed_001_s_figures():
    loaded = load_inventory(EXAMPLES / "boards-omap.yaml")
    board = loaded.boards["omap3630-zoom-msc-usb2"]
    assert board.setting("msc.backing_dir") == "/media/sd"  # the LUN on the SD card, as the seed's
    assert _band(loaded, "omap3630-zoom-msc-usb2", "usb.msc.read", bs="1M").low == 16.5  # 0.9x 17937 KiB/s
    assert _band(loaded, "omap3630-zoom-msc-usb2", "usb.msc.fs.write", bs="64K").low == 7.65  # 0.9x 8.5 MBps
    assert _band(loaded, "omap3630-zoom-msc-usb2", "usb.msc.fs.write.async", bs="102400").low == 10.35  # 0.9x 11.5
    assert _band(loaded, "omap3630-zoom-msc-usb2", "usb.msc.read.cpu_busiest").high == 25


def test_uvc_examples_load_with_their_seed_bands():
    loaded = load_inventory(EXAMPLES / "boards-uvc.yaml")
    assert set(loaded.boards) == {"rv1108-evb-uvc-gadget", "rk3399-evb-camera-usb2", "rk3588-evb1-camera-usb3"}
    gadget = loaded.boards["rv1108-evb-uvc-gadget"].config
    assert gadget.link.speed == "high" and not gadget.link.emulated
    fps = gadget.metrics["usb.uvc.fps"]
    assert fps.min == 27  # 90% of table 3-3..3-6's MJPEG 1920x1080 @30 fps
    assert fps.params["stream=yuyv-640x480,transfer=iso1024"].min == 10.8  # table 3-3: 12 fps
    assert loaded.boards["rk3588-evb1-camera-usb3"].config.metrics["usb.camera.fps"].nominal == 60


RK3399 = EXAMPLES / "boards-rk3399-gadget.yaml"
# Seed 000's figures the RK3399 bands are 90% of (R1, R2 in the file's header); sources quote them too.
MTP_TABLE_3_1 = {  # (link speed, direction) -> buffer -> MB/s
    ("super", "read"): {"16K": 65.6, "64K": 71.3, "1M": 87.3},
    ("super", "write"): {"16K": 109.0, "64K": 107.5, "1M": 110.0},
    ("high", "read"): {"16K": 24.7, "64K": 22.8, "1M": 24.7},
    ("high", "write"): {"16K": 22.8, "64K": 21.5, "1M": 25.6},
}
UVC_TABLES = {"iso1024": 12, "iso2048": 24, "iso3072": 30, "bulk": 30}  # tables 3-3..3-6, YUYV 640x480
HID = {("in", "1ms"): 125, ("in", "125us"): 2659, ("out", "1ms"): 249, ("out", "125us"): 872}  # RK3188, 512 B
BLOCKS = {"4K": 4, "64K": 64, "128K": 128, "512K": 512, "1M": 1024}


def _band(loaded, board, metric, **params):
    return loaded.boards[board].spec_for(loaded.inventory, metric, params).band


def test_rk3399_gadget_example_has_a_super_and_a_high_speed_pair_on_the_lab_pc():
    loaded = load_inventory(RK3399)
    assert {name: b.config.link.speed for name, b in loaded.boards.items()} == {
        "rk3399-evb-usb3": "super",
        "rk3399-evb-usb2": "high",
    }
    for board in loaded.boards.values():
        config = board.config
        assert config.link.udc == "fe800000.dwc3" and not config.link.emulated
        assert {role: r.target for role, r in config.roles.items()} == {"host": "lab-pc", "device": "rk3399-evb"}
        assert board.env_path == EXAMPLES / "rockchip-usb-env.yaml"
        tuning = config.tuning
        assert (tuning.roles, tuning.cpu_governor, tuning.cpu_freq, tuning.cpus_online) == (
            ["device"],
            "performance",
            "max",
            True,
        )


def test_rk3399_gadget_example_declares_every_gadget_metric_and_says_how_each_band_was_derived():
    loaded = load_inventory(RK3399)
    gadget = ("usb.msc", "usb.uvc", "usb.hid", "usb.mtp", "usb.net")  # MSC (+ fs), UVC, HID, MTP, ECM/NCM/RNDIS
    families = [family for family in CATALOGUE.families if family.name in gadget]
    gadget_metrics = {metric.name for family in families for metric in family.metrics}
    for name, board in loaded.boards.items():
        assert set(board.config.metrics) == gadget_metrics, name
        for metric, entry in board.config.metrics.items():
            if entry.informative:  # no seed figure: recorded, not gated
                assert entry.source.startswith("R3: "), (name, metric)
            elif metric in ("usb.uvc.dropped", "usb.uvc.corrupt"):
                assert entry.max == 0
            elif metric.endswith(".cpu_busiest"):  # a transfer's CPU cost: seed 001's 25%, seed 004's saturation
                assert entry.source.startswith("R5: ") and entry.max in (25, 90), (name, metric)
            elif metric == "usb.net.udp.loss":  # decides whether the gated UDP rate is valid
                assert entry.source.startswith("R4: ") and entry.max == 1, (name, metric)
            else:
                assert entry.source.startswith(("R1", "R2")) and "seed 000" in entry.source, (name, metric)
    # What the seed has no figure for, on either link; at high speed also the MSC read (its figure is USB 3.0).
    no_figure = {
        "usb.msc.write",
        "usb.msc.hdparm.read",
        "usb.msc.fs.read",
        "usb.msc.fs.write",
        "usb.msc.fs.write.async",
        "usb.net.udp.jitter",
        "usb.net.udp.out_of_order",
        "usb.net.udp.knee",
    }
    for name, extra in (("rk3399-evb-usb3", set()), ("rk3399-evb-usb2", {"usb.msc.read"})):
        metrics = loaded.boards[name].config.metrics
        assert {metric for metric, entry in metrics.items() if entry.informative} == no_figure | extra, name


def test_rk3399_gadget_example_bands_are_90_percent_of_seed_000s_figures():
    loaded = load_inventory(RK3399)
    for board, speed in (("rk3399-evb-usb3", "super"), ("rk3399-evb-usb2", "high")):
        for (link, direction), figures in MTP_TABLE_3_1.items():
            if link == speed:
                source = loaded.boards[board].config.metrics[f"usb.mtp.{direction}"].source
                for buffer, figure in figures.items():
                    band = _band(loaded, board, f"usb.mtp.{direction}", buffer=buffer, direction=direction)
                    assert band.low == pytest.approx(0.9 * figure), (board, direction, buffer)
                    assert f"{buffer} {figure}" in source  # the source quotes the figure it is 90% of
        for transfer, fps in UVC_TABLES.items():
            assert _band(loaded, board, "usb.uvc.fps", stream="yuyv-640x480", transfer=transfer).low == 0.9 * fps
        # streaming_interval 4 (--matrix full): an eighth of the bytes, an eighth of the rate; at high speed
        # iso1024 only (a high-bandwidth endpoint gets bInterval 1, so those cases skip)
        for transfer in ("iso1024", "iso2048", "iso3072") if speed == "super" else ("iso1024",):
            service = {"streaming_interval": 4, "streaming_maxburst": 0}
            band = _band(loaded, board, "usb.uvc.fps", stream="yuyv-640x480", transfer=transfer, **service)
            assert band.low == pytest.approx(0.9 * UVC_TABLES[transfer] / 8), (board, transfer)
        for stream in ("mjpeg-1280x720", "mjpeg-1920x1080"):
            assert _band(loaded, board, "usb.uvc.fps", stream=stream, transfer="iso1024").low == 0.9 * 30
        for (direction, interval), figure in HID.items():
            for report in (512, 1024):
                band = _band(loaded, board, f"usb.hid.{direction}", report=report, interval=interval)
                assert band.low == pytest.approx(0.9 * figure), (board, direction, interval, report)
        for metric in ("usb.net.tcp.tx", "usb.net.tcp.rx", "usb.net.udp.throughput"):
            for function in ("ecm", "ncm", "rndis"):
                assert _band(loaded, board, metric, function=function, direction="tx").low == 0.9 * 100
    # MSC: 250 MB/s at 1M; smaller blocks scaled down by bs / 1 MiB (a smaller read takes no longer).
    for bs, kib in BLOCKS.items():
        low = _band(loaded, "rk3399-evb-usb3", "usb.msc.read", bs=bs, direction="read").low
        assert low <= 0.9 * 250 * kib / 1024 < low * 1.01, bs


def test_rk3399_gadget_examples_lab_pc_confirms_enumeration_through_pyusb():
    env = Environment(config_file=str(EXAMPLES / "rockchip-usb-env.yaml"))
    try:
        pc = env.get_target("lab-pc")  # the boards' targets (serial ports, PDU) are not built
        assert isinstance(pc.get_driver("UsbEnumerationDriver"), UsbEnumerationDriver)
        assert isinstance(pc.get_driver("CommandProtocol"), LocalShellDriver)
        board = env.config.data["targets"]["rk3399-evb"]
        assert set(board["resources"]) == {"USBSerialPort", "NetworkPowerPort", "USBPowerPort", "USBSDMuxDevice"}
        assert {"SerialDriver", "NetworkPowerDriver", "ShellDriver", "BoardStrategy"} <= set(board["drivers"])
    finally:
        env.cleanup()


def test_the_virtual_board_has_no_pyusb_driver_so_its_pairs_keep_the_sysfs_check():
    vlab = yaml.safe_load((EXAMPLES.parent / "hil/vlab/env.yaml").read_text().replace("!template", ""))
    assert "UsbEnumerationDriver" not in vlab["targets"]["vboard"]["drivers"]


def test_android_example_loads_with_the_android_backend_and_table_3_1_bands():
    loaded = load_inventory(EXAMPLES / "boards-android.yaml")
    assert set(loaded.boards) == {"rk3399-box-android-usb3", "rk3399-box-android-usb2", "rk3126c-proto-android-usb2"}
    usb3 = loaded.boards["rk3399-box-android-usb3"]
    link = usb3.config.link
    assert (link.gadget, link.speed, link.udc) == ("android", "super", "fe800000.dwc3")
    assert link.android_gadget.keep_adb and link.android_gadget.functions == ["mtp", "rndis"]
    # 90% of seed 000 table 3-1 (RK3399 BOX SDK, Android N), per buffer length
    bands = {
        (metric, buffer): usb3.spec_for(loaded.inventory, metric, {"buffer": buffer}).band.low
        for metric in ("usb.mtp.read", "usb.mtp.write")
        for buffer in ("16K", "64K", "1M")
    }
    figures = {
        ("usb.mtp.read", "16K"): 65.6,
        ("usb.mtp.read", "64K"): 71.3,
        ("usb.mtp.read", "1M"): 87.3,
        ("usb.mtp.write", "16K"): 109.0,
        ("usb.mtp.write", "64K"): 107.5,
        ("usb.mtp.write", "1M"): 110.0,
    }
    assert bands == pytest.approx({key: 0.9 * figure for key, figure in figures.items()}, abs=0.05)
    usb2 = loaded.boards["rk3399-box-android-usb2"]
    assert usb2.config.link.speed == "high"
    assert usb2.spec_for(loaded.inventory, "usb.mtp.write", {"buffer": "1M"}).band.low == pytest.approx(
        0.9 * 25.6, abs=0.05
    )
    # Table 3-2 (RK3126C prototype, Android O): 16K and 64K only.
    rk3126c = loaded.boards["rk3126c-proto-android-usb2"]
    table_3_2 = {("usb.mtp.read", "16K"): 14.85, ("usb.mtp.read", "64K"): 15.15, ("usb.mtp.write", "16K"): 7.1,
                 ("usb.mtp.write", "64K"): 7.8}  # fmt: skip
    for (metric, buffer), figure in table_3_2.items():
        band = rk3126c.spec_for(loaded.inventory, metric, {"buffer": buffer}).band
        assert band.low == pytest.approx(0.9 * figure, abs=0.05)


def test_usb_ethernet_examples_load_with_the_seeds_rates_and_the_adapters_link():
    loaded = load_inventory(EXAMPLES / "boards-usb-ethernet.yaml")
    assert set(loaded.boards) == {"rk3399-evb-usb3-ethernet", "rk3399-evb-usb2-ethernet"}
    usb3 = loaded.boards["rk3399-evb-usb3-ethernet"]
    assert set(usb3.config.roles) == {"host", "device", "peer"} and usb3.config.roles["peer"].target == "lab-pc"
    assert usb3.config.link.speed == "super" and usb3.setting("ethernet.link_mbps") == 1000
    assert usb3.config.metrics["usb.ethernet.tcp.rx"].min == 750  # seed 000: 750-800 Mbit/s on USB 3.0
    usb2 = loaded.boards["rk3399-evb-usb2-ethernet"].config.metrics
    assert usb2["usb.ethernet.udp.throughput"].min == 85.5  # 90% of the seed's 95 Mbit/s (UDP)
    # TCP's goodput ceiling on 100 Mbit/s Ethernet is 94.1 Mbit/s: a floor at or above it could never pass.
    assert usb2["usb.ethernet.tcp.tx"].min < 94.1 and usb2["usb.ethernet.tcp.rx"].min < 94.1
    # The adapter's 1000 Mbit/s is the ceiling once the test passes it as the case's link_mbps.
    spec = usb3.spec_for(loaded.inventory, "usb.ethernet.tcp.tx", {"link_mbps": 1000})
    assert spec.ceiling.value == 1000 and spec.ceiling.enforced


def _kind(path: Path) -> str:
    data = yaml.safe_load(path.read_text().replace("!template", ""))
    return "inventory" if "pairs" in data else "environment" if "targets" in data else "other"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_every_example_loads(path: Path, monkeypatch):
    """Each inventory through hil's loader (against its own environment, the rehearsal one by --lg-env), each
    labgrid environment through labgrid with every target built; serial ports by udev match, never a
    /dev/ttyUSBn that changes with the order of plugging."""
    monkeypatch.setenv("LG_HIL_BENCH", "/nonexistent")  # the rehearsal env's !template values
    kind = _kind(path)
    assert kind != "other", f"{path.name} is neither an inventory nor a labgrid environment"
    if kind == "inventory":
        lg_env = EXAMPLES / "rehearsal-env.yaml" if path.name == "boards-rehearsal.yaml" else None
        assert load_inventory(path, lg_env=lg_env).boards
        return
    assert "/dev/ttyUSB" not in path.read_text()
    env = Environment(config_file=str(path))
    for name in env.config.get_targets():
        assert env.get_target(name) is not None
    env.cleanup()


# Rates gated from below whose far edge is neither a band maximum nor an enforced physical ceiling, with why.
FAR_EDGE_EXCEPTIONS = {
    "usb.uvc.fps": "a gadget streams at most the frame interval it advertises; the link's frame-rate ceiling "
    "(hil.catalogue.ceilings.UsbFrames) exists for uncompressed streams only, MJPEG has none",
    "usb.camera.fps": "as usb.uvc.fps: the camera's advertised interval bounds it",
    "nvme.rnd4k_q32t1.read_iops": "IOPS have no link ceiling; the same run's rate (nvme.rnd4k_q32t1.read) has PCIe's",
    "nvme.rnd4k_q32t1.write_iops": "as the read IOPS: the same run's write rate has PCIe's ceiling",
    "usb.msc.fs.write.async": "dd's time alone ends in the host's page cache, which no link bounds; the same runs' "
    "synchronous rate (usb.msc.fs.write) has the link's ceiling",
}


def test_every_rate_in_the_shipped_inventories_is_gated_on_both_edges_or_says_why_not():
    from hil.catalogue import CATALOGUE
    from hil.inventory.specs import band_of
    from hil.verdict.spec import Direction

    inventories = [EXAMPLES.parent / "boards.yaml", *sorted(EXAMPLES.glob("boards-*.yaml"))]
    open_ended = set()
    for path in inventories:
        lg_env = EXAMPLES / "rehearsal-env.yaml" if path.name == "boards-rehearsal.yaml" else None
        for board in load_inventory(path, lg_env=lg_env).boards.values():
            for metric_name, entry in board.config.metrics.items():
                metric = CATALOGUE.metric(metric_name)
                if entry.informative or metric.direction is not Direction.HIGHER:
                    continue
                band = band_of(entry, entry.unit, metric)
                enforced = metric.ceiling is not None and not board.config.link.emulated
                if band.high is None and not enforced:
                    open_ended.add(metric_name)
    assert open_ended <= set(FAR_EDGE_EXCEPTIONS), open_ended - set(FAR_EDGE_EXCEPTIONS)
