"""The example inventories in examples/ stay valid against the schema and the catalogue."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_android_example_loads_with_the_android_backend_and_table_3_1_bands():
    loaded = load_inventory(EXAMPLES / "boards-android.yaml")
    assert set(loaded.boards) == {"rk3399-box-android-usb3", "rk3399-box-android-usb2"}
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
