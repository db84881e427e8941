"""The configfs UVC path on the real virtual board: what the UVC function builds, why it cannot stream
over dummy_hcd (the reason the isochronous UVC cases, and the camera cases of pairs without
camera.gadgetfs, skip with), and v4l2_fps measuring vivid, a V4L2 device that needs no USB. What does
stream over dummy_hcd, hil's GadgetFS bulk camera, is tests/vlab/test_uvc_gadgetfs_vlab.py's.

These boot a real QEMU board (TCG) and talk to it over its serial console through labgrid.
"""

from __future__ import annotations

import pytest

from hil.lab.board import shell
from hil.lab.board.role import CommandFailed, Role
from hil.lab.usb_gadget import udc
from hil.lab.usb_gadget.gadget import CONFIGFS, Gadget, Uvc
from hil.lab.usb_host import usbhost
from hil.lab.usb_host.camera import uvc_capture_node, uvc_source_command
from hil.measure import v4l2_fps
from hil.verdict.errors import MeasurementError

UDC = "dummy_udc.0"


@pytest.fixture(autouse=True)
def _programs(vboard_with_programs):
    """hil's programs these tests run, deployed on the board first."""


def _gadget_dirs(role: Role) -> list[str]:
    return role.run(shell.cmd("ls", CONFIGFS), check=False).split()


@pytest.mark.parametrize(
    ("camera", "group"),
    [
        (Uvc(fmt="yuyv", width=640, height=480, maxpacket=1024), "uncompressed/u"),
        (Uvc(fmt="mjpeg", width=1920, height=1080, maxpacket=3072, interval=4, maxburst=15), "mjpeg/m"),
    ],
    ids=["yuyv", "mjpeg"],
)
def test_the_uvc_function_tree_is_accepted_and_removed(vboard, camera, group):
    gadget = Gadget(vboard, UDC, [camera])
    gadget.remove()
    try:
        gadget.create()  # every mkdir, attribute and link of the tree, without binding
        fdir = f"{gadget.path}/functions/uvc.0"
        frame = f"{fdir}/streaming/{group}/f1"
        assert vboard.read(f"{frame}/wWidth") == str(camera.width)
        assert vboard.read(f"{frame}/dwMaxVideoFrameBufferSize") == str(camera.width * camera.height * 2)
        assert vboard.read(f"{fdir}/streaming_maxpacket") == str(camera.maxpacket)
        # The isochronous service settings (test_uvc.py's streaming_interval, streaming_maxburst) as written.
        assert vboard.read(f"{fdir}/streaming_interval") == str(camera.interval)
        assert vboard.read(f"{fdir}/streaming_maxburst") == str(camera.maxburst)
        links = vboard.run(shell.cmd("ls", f"{fdir}/streaming/class/hs", f"{fdir}/control/class/ss")).split()
        assert links.count("h") == 2
    finally:
        gadget.remove()
    assert "hil" not in _gadget_dirs(vboard), "the UVC function's nested tree is gone"


def test_dummy_udc_cannot_bind_a_uvc_function_and_the_tree_is_cleaned_up(vboard):
    """The fact behind hil.lab.usb_host.camera.NO_ISO_ON_DUMMY_HCD: should a kernel give dummy_hcd isochronous
    endpoints, this fails and the virtual lab can carry the UVC cases."""
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    vboard.run("dmesg -c >/dev/null")
    with pytest.raises(CommandFailed), Gadget(vboard, UDC, [Uvc()]):
        pass
    assert "uvc: Unable to allocate streaming EP" in vboard.run("dmesg")
    assert "hil" not in _gadget_dirs(vboard)


def test_v4l2_fps_measures_a_real_capture_device(vboard):
    vboard.run("modprobe vivid n_devs=1 node_types=0x1 input_types=0x0", timeout=60)
    try:
        node = vboard.run(
            'for v in /sys/class/video4linux/video*; do grep -q vivid "$v/name" && echo "/dev/${v##*/}"; done'
        ).split()[0]
        measurement = v4l2_fps.run(vboard, node, "yuyv", 640, 480, frames=20, frame_timeout_s=10)
    finally:
        vboard.run("modprobe -r vivid", check=False, timeout=60)
    assert measurement.values["fps"].value > 0
    assert measurement.values["corrupt"].value == 0
    assert measurement.details["frames"] == 20


VUDC = "usbip-vudc.0"


def test_over_usbip_the_stream_is_negotiated_but_no_isochronous_frame_arrives(vboard):
    """The other virtual UDC the kernel has: USB/IP's vudc, attached to vhci_hcd over loopback. The UVC
    gadget binds and enumerates there, uvcvideo probes it, and uvc_source answers the probe/commit requests
    and gets STREAMON: its control path works against a real uvcvideo. But vudc fails every isochronous
    URB with -EXDEV (vudc_transfer.c: "TODO: support"), so no whole frame arrives: should this start to
    pass frames, the virtual lab can carry the UVC cases."""
    vboard.run("ip link set lo up && modprobe -a usbip-vudc vhci-hcd", timeout=60)
    vboard.run("dmesg -c >/dev/null")
    camera = Uvc()
    try:
        with Gadget(vboard, VUDC, [camera]) as gadget:
            source = uvc_source_command(camera.video_node(vboard), "yuyv", 640, 480, max_payload=1024)
            with vboard.background(source, ready="uvc_source ready", name="uvc_source") as frames:
                vboard.run("usbipd --device -D && sleep 1 && usbip attach -r 127.0.0.1 -d " + VUDC, timeout=60)
                device = usbhost.wait_for_device(vboard, gadget.serial, timeout_s=60)
                node = uvc_capture_node(vboard, device, timeout_s=60)
                with pytest.raises(MeasurementError, match="exited 1") as failed:
                    v4l2_fps.run(vboard, node, "yuyv", 640, 480, frames=10, frame_timeout_s=10)
            assert "uvc_source streaming yuyv 640x480" in frames.output
    finally:
        vboard.run("usbip detach -p 0; kill $(pidof usbipd)", check=False, timeout=60)
    assert "no frame within 10 s" in failed.value.raw_output
    assert "Non-zero status (-18) in video completion handler" in vboard.run("dmesg")
    assert "hil" not in _gadget_dirs(vboard)
