"""hil.lab.usb_host.camera and the UVC configfs function: where a UVC stream can run, and finding the capture node
uvcvideo registers (on a sysfs-shaped tree in a temporary directory, through a real shell on this PC)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.errors import LabError
from hil.inventory.loader import load_inventory
from hil.lab.usb_gadget import uvc_gadgetfs
from hil.lab.usb_gadget.gadget import Uvc
from hil.lab.usb_host import camera
from hil.lab.usb_host.usbhost import UsbDevice


def test_dummy_udc_streams_bulk_only_and_bulk_needs_a_vendor_kernel_or_gadgetfs():
    assert camera.uvc_unavailable("dummy_udc.0", bulk=False, bulk_supported=False) == camera.NO_ISO_ON_DUMMY_HCD
    assert camera.uvc_unavailable("dummy_udc.0", bulk=True, bulk_supported=False) == camera.NO_BULK_IN_MAINLINE
    assert camera.uvc_unavailable("dummy_udc.0", bulk=True, bulk_supported=True) is None  # the GadgetFS camera
    assert camera.uvc_unavailable("fe800000.dwc3", bulk=True, bulk_supported=False) == camera.NO_BULK_IN_MAINLINE
    assert camera.uvc_unavailable("fe800000.dwc3", bulk=True, bulk_supported=True) is None
    assert camera.uvc_unavailable("fe800000.dwc3", bulk=False, bulk_supported=False) is None
    assert camera.uvc_unavailable(None, bulk=False, bulk_supported=False) is None  # a camera on a host board


def test_uvc_function_attributes_and_payload():
    hs = Uvc(fmt="yuyv", width=640, height=480, maxpacket=3072)
    assert hs.attributes == {"streaming_maxpacket": 3072, "streaming_interval": 1, "streaming_maxburst": 0}
    assert hs.max_payload("high") == 3072
    assert Uvc(maxpacket=1024, maxburst=15).max_payload("super") == 16 * 1024
    bulk = Uvc(fmt="mjpeg", width=1920, height=1080, bulk=True)
    assert bulk.attributes["streaming_bulk"] == 1
    assert bulk.max_payload("high") == 1920 * 1080 * 2


@pytest.mark.parametrize(("options", "message"), [({"fmt": "h264"}, "UVC format"), ({"maxpacket": 4096}, "1..1024")])
def test_uvc_function_refuses_what_f_uvc_cannot_do(options, message):
    with pytest.raises(ValueError, match=message):
        Uvc(**options)


def test_uvc_tree_quotes_paths_and_links_every_speed():
    steps = Uvc(fmt="mjpeg", width=1280, height=720).tree("/cfg/g 1/functions/uvc.0")
    script = " && ".join(steps)
    assert "'/cfg/g 1/functions/uvc.0/streaming/mjpeg/m/f1'" in script
    for speed in ("fs", "hs", "ss"):
        assert f"'/cfg/g 1/functions/uvc.0/streaming/class/{speed}/h'" in script


def _video(tmp_path, interface: str, name: str, index: int) -> None:
    node = tmp_path / interface / "video4linux" / name
    node.mkdir(parents=True)
    (node / "index").write_text(f"{index}\n")


def test_the_capture_node_is_index_0_of_the_device(role, tmp_path):
    _video(tmp_path, "1-1:1.1", "video2", 0)
    _video(tmp_path, "1-1:1.1", "video3", 1)  # uvcvideo's metadata node
    device = UsbDevice(sysfs=str(tmp_path), speed_mbps=480.0, vendor_id="1d6b", product_id="0104", serial="x")
    assert camera.uvc_capture_node(role, device, timeout_s=1) == "/dev/video2"


def test_no_capture_node_is_an_error_within_its_bound(role, tmp_path):
    device = UsbDevice(sysfs=str(tmp_path), speed_mbps=480.0, vendor_id="1d6b", product_id="0104", serial="x")
    with pytest.raises(LabError, match="registered no capture node"):
        camera.uvc_capture_node(role, device, timeout_s=1)


def test_the_gadgetfs_camera_command_quotes_every_value():
    command = uvc_gadgetfs.camera_command("dummy_udc.0", Uvc(fmt="mjpeg", width=1280, height=720), "a b")
    assert command == "uvc_gadgetfs /dev/gadget dummy_udc.0 mjpeg 1280 720 16384 'a b'"


def test_the_uvc_source_command_quotes_every_value():
    assert camera.uvc_source_command("/dev/video0", "mjpeg", 1920, 1080, max_payload=3072) == (
        "uvc_source /dev/video0 mjpeg 1920 1080 3072"
    )
    assert camera.uvc_source_command("/dev/video 1", "yuyv", 640, 480, max_payload=1024) == (
        "uvc_source '/dev/video 1' yuyv 640 480 1024"
    )
    with pytest.raises(ValueError, match="format"):
        camera.uvc_source_command("/dev/video0", "h264", 640, 480, max_payload=1024)


def test_the_h264_stream_is_a_real_camera_s_case_and_skips_on_the_board_s_own_camera():
    repo = Path(__file__).resolve().parents[2]
    vlab = next(b for b in load_inventory(repo / "boards.yaml").boards.values() if "usb.camera.fps" in b.config.metrics)
    reason = camera.camera_stream_unavailable(vlab, {"stream": "h264-1920x1080"})
    assert reason is not None and "not H264" in reason
    assert camera.camera_stream_unavailable(vlab, {"stream": "yuyv-640x480"}) is None


def _pairs(inventory: str) -> dict:
    repo = Path(__file__).resolve().parents[2]
    return load_inventory(repo / inventory).boards


@pytest.mark.parametrize(
    ("pair", "case", "because"),
    [
        # Seed 000's f_uvc: streaming_maxburst "0 - 15 (ss only)"; 6.1 gives a high-bandwidth endpoint bInterval 1.
        ("rk3399-evb-usb2", {"transfer": "iso1024", "streaming_maxburst": 15}, "super speed only"),
        ("rk3399-evb-usb2", {"transfer": "iso3072", "streaming_interval": 4}, "bInterval 1 at high speed"),
        ("rk3399-evb-usb3", {"transfer": "bulk", "streaming_interval": 4}, "a bulk camera runs at their defaults"),
        ("rk3399-evb-usb3", {"transfer": "bulk", "streaming_maxburst": 15}, "a bulk camera runs at their defaults"),
    ],
)
def test_a_service_setting_the_transfer_or_speed_does_not_run_skips_saying_why(pair, case, because):
    board = _pairs("examples/boards-rk3399-gadget.yaml")[pair]
    reason = camera.uvc_stream_unavailable(board, {"stream": "yuyv-640x480", **case})
    assert reason is not None and because in reason


@pytest.mark.parametrize(
    ("pair", "case"),
    [
        ("rk3399-evb-usb2", {"transfer": "iso1024", "streaming_interval": 4, "streaming_maxburst": 0}),
        ("rk3399-evb-usb3", {"transfer": "iso3072", "streaming_interval": 4, "streaming_maxburst": 15}),
        ("rk3399-evb-usb3", {"transfer": "iso2048", "streaming_interval": 1, "streaming_maxburst": 15}),
    ],
)
def test_a_service_setting_the_link_runs_streams(pair, case):
    assert camera.uvc_stream_unavailable(_pairs("examples/boards-rk3399-gadget.yaml")[pair], case) is None


def test_on_the_virtual_lab_every_isochronous_service_setting_skips_for_want_of_isochronous_endpoints():
    vlab = _pairs("boards.yaml")
    for case in (
        {"streaming_interval": 4, "streaming_maxburst": 0},
        {"streaming_interval": 1, "streaming_maxburst": 15},
    ):
        assert (
            camera.uvc_stream_unavailable(vlab["vlab-ss"], {"transfer": "iso1024", **case})
            == camera.NO_ISO_ON_DUMMY_HCD
        )
    assert camera.uvc_stream_unavailable(vlab["vlab-hs"], {"transfer": "bulk", "streaming_interval": 1}) is None


@pytest.mark.parametrize(
    ("options", "message"),
    [({"interval": 0}, "streaming_interval 0 is not 1..16"), ({"maxburst": 16}, "streaming_maxburst 16 is not 0..15")],
)
def test_uvc_service_settings_outside_f_uvc_s_ranges_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        Uvc(**options)


def test_uvc_service_settings_are_written_to_the_function_s_attributes():
    commands = Uvc(maxpacket=3072, interval=4, maxburst=15).attribute_commands("/cfg/g/functions/uvc.0")
    assert "printf '%s\\n' 4 > /cfg/g/functions/uvc.0/streaming_interval" in commands
    assert "printf '%s\\n' 15 > /cfg/g/functions/uvc.0/streaming_maxburst" in commands
