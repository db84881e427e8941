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
