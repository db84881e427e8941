"""The example inventories in examples/ stay valid against the schema and the catalogue."""

from __future__ import annotations

from pathlib import Path

from hil.inventory.loader import load_inventory

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_rockchip_nvme_examples_load_with_their_seed_bands_and_links():
    loaded = load_inventory(EXAMPLES / "boards-rockchip.yaml")
    links = {name: (b.config.link.gen, b.config.link.lanes) for name, b in loaded.boards.items()}
    assert links == {
        "rk3588-evb1-nvme-gen3x4": (3, 4),
        "rk3568-evb1-nvme-gen3x2": (3, 2),
        "rk3588s-evb1-nvme-gen2x1": (2, 1),
    }
    rk3588 = loaded.boards["rk3588-evb1-nvme-gen3x4"].config
    assert not rk3588.link.emulated and set(rk3588.roles) == {"rc"}
    assert rk3588.metrics["nvme.seq1m_q32t1.read"].min == 2897  # 90% of seed 002's 3219.2 MB/s
    assert "3219.2 MB/s" in rk3588.metrics["nvme.seq1m_q32t1.read"].source


def test_uvc_examples_load_with_their_seed_bands():
    loaded = load_inventory(EXAMPLES / "boards-uvc.yaml")
    assert set(loaded.boards) == {"rv1108-evb-uvc-gadget", "rk3399-evb-camera-usb2", "rk3588-evb1-camera-usb3"}
    gadget = loaded.boards["rv1108-evb-uvc-gadget"].config
    assert gadget.link.speed == "high" and not gadget.link.emulated
    fps = gadget.metrics["usb.uvc.fps"]
    assert fps.min == 27  # 90% of table 3-3..3-6's MJPEG 1920x1080 @30 fps
    assert fps.params["stream=yuyv-640x480,transfer=iso1024"].min == 10.8  # table 3-3: 12 fps
    assert loaded.boards["rk3588-evb1-camera-usb3"].config.metrics["usb.camera.fps"].nominal == 60


def test_usb_ethernet_examples_load_with_the_seeds_rates_and_the_adapters_link():
    loaded = load_inventory(EXAMPLES / "boards-usb-ethernet.yaml")
    assert set(loaded.boards) == {"rk3399-evb-usb3-ethernet", "rk3399-evb-usb2-ethernet"}
    usb3 = loaded.boards["rk3399-evb-usb3-ethernet"]
    assert set(usb3.config.roles) == {"host", "device", "peer"} and usb3.config.roles["peer"].target == "lab-pc"
    assert usb3.config.link.speed == "super" and usb3.setting("ethernet.link_mbps") == 1000
    assert usb3.config.metrics["usb.ethernet.tcp.rx"].min == 750  # seed 000: 750-800 Mbit/s on USB 3.0
    assert loaded.boards["rk3399-evb-usb2-ethernet"].config.metrics["usb.ethernet.udp.throughput"].min == 95
    # The adapter's 1000 Mbit/s is the ceiling once the test passes it as the case's link_mbps.
    spec = usb3.spec_for(loaded.inventory, "usb.ethernet.tcp.tx", {"link_mbps": 1000})
    assert spec.ceiling.value == 1000 and spec.ceiling.enforced
