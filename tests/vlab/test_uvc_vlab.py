"""The UVC path on the real virtual board: what the configfs UVC function builds, why it cannot stream
over dummy_hcd (the reason the UVC and camera cases skip with), and v4l2_fps measuring a real V4L2
device there (vivid: the one capture device the virtual board has).

These boot a real QEMU board (TCG) and talk to it over its serial console through labgrid.
"""

from __future__ import annotations

import pytest

from hil.lab import link, shell
from hil.lab.gadget import CONFIGFS, Gadget, Uvc
from hil.lab.role import CommandFailed, Role
from hil.measure import v4l2_fps

UDC = "dummy_udc.0"


def _gadget_dirs(role: Role) -> list[str]:
    return role.run(shell.cmd("ls", CONFIGFS), check=False).split()


@pytest.mark.parametrize(
    ("camera", "group"),
    [
        (Uvc(fmt="yuyv", width=640, height=480, maxpacket=1024), "uncompressed/u"),
        (Uvc(fmt="mjpeg", width=1920, height=1080, maxpacket=3072), "mjpeg/m"),
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
        links = vboard.run(shell.cmd("ls", f"{fdir}/streaming/class/hs", f"{fdir}/control/class/ss")).split()
        assert links.count("h") == 2
    finally:
        gadget.remove()
    assert "hil" not in _gadget_dirs(vboard), "the UVC function's nested tree is gone"


def test_dummy_udc_cannot_bind_a_uvc_function_and_the_tree_is_cleaned_up(vboard):
    """The fact behind hil.lab.camera.NO_ISO_ON_DUMMY_HCD: should a kernel give dummy_hcd isochronous
    endpoints, this fails and the virtual lab can carry the UVC cases."""
    link.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
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
