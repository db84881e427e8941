"""V4L2 camera nodes on a role, the camera gadgets the UVC and camera cases stream from, and what the virtual
lab cannot stream. uvcvideo registers two nodes per camera: capture (index 0, the frames) and metadata (1).
"""

from __future__ import annotations

import contextlib
import shlex
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from hil.catalogue.ceilings import transfer_bytes
from hil.catalogue.usb_camera import CameraSettings
from hil.catalogue.usb_device import UvcSettings
from hil.errors import LabError
from hil.inventory.loader import Board
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.usb_gadget.gadget import GadgetBackend, Uvc
from hil.lab.usb_gadget.on_link import GadgetOnLink, gadget_on
from hil.lab.usb_gadget.uvc_gadgetfs import GadgetfsCamera
from hil.lab.usb_host.usbhost import UsbDevice

if TYPE_CHECKING:
    from hil.lab.pair import BoardPair

POLL_S = 0.5
UVC_SOURCE = "uvc_source"
UVC_SOURCE_FORMATS = ("yuyv", "mjpeg")

# Verified on the virtual board (Linux 6.1): dummy_udc offers bulk and interrupt endpoints only and f_uvc
# streams isochronously only ("uvc: Unable to allocate streaming EP"). USB/IP's vudc binds the gadget but fails
# every isochronous URB with -EXDEV (tests/vlab/test_uvc_vlab.py checks both). What does cross dummy_hcd is a
# bulk camera: hil's GadgetFS program (uvc.gadgetfs, camera.gadgetfs).
NO_ISO_ON_DUMMY_HCD = (
    "dummy_udc has no isochronous endpoints and mainline f_uvc (Linux 6.1) streams isochronously only: "
    "the UVC function cannot bind on the virtual lab ('uvc: Unable to allocate streaming EP', verified); "
    "bulk streaming runs there through hil's GadgetFS camera (uvc.gadgetfs / camera.gadgetfs)"
)
NO_BULK_IN_MAINLINE = (
    "mainline f_uvc (Linux 6.1) has no bulk streaming endpoint; a board whose vendor kernel has one "
    "(seed 000 table 3-6) sets uvc.bulk: true, a pair that streams from hil's GadgetFS camera uvc.gadgetfs: true"
)


# Linux 6.1's f_uvc gives a high-speed endpoint of several packets per microframe bInterval 1 whatever
# streaming_interval says (uvc_function_bind); streaming_maxburst applies at super speed only.
SERVICE_DEFAULTS = {"streaming_interval": 1, "streaming_maxburst": 0}


def uvc_service_unavailable(transfer: str, speed: str, interval: int, maxburst: int) -> str | None:
    """Why a UVC case cannot run its `transfer` at `interval` and `maxburst` on a link of `speed`, or None."""
    if (interval, maxburst) == (1, 0):
        return None
    if transfer == "bulk":
        return (
            "streaming_interval and streaming_maxburst shape the isochronous endpoint: a bulk camera runs at "
            "their defaults (1 and 0) only"
        )
    if maxburst and speed != "super":
        return f"streaming_maxburst applies at super speed only (f_uvc: '0 - 15 (ss only)'): this link is {speed} speed"
    if interval != 1 and speed == "high" and (transfer_bytes(transfer) or 0) > 1024:
        return (
            f"f_uvc gives a high-bandwidth endpoint ({transfer}: several packets per microframe) bInterval 1 at "
            f"high speed: streaming_interval {interval} would not be what runs"
        )
    return None


def uvc_unavailable(udc: str | None, *, bulk: bool, bulk_supported: bool) -> str | None:
    """Why a UVC gadget cannot stream on this UDC with this transfer type, or None when it can."""
    if bulk:
        return None if bulk_supported else NO_BULK_IN_MAINLINE
    if udc is not None and udc.startswith("dummy_udc"):
        return NO_ISO_ON_DUMMY_HCD
    return None


def uvc_stream_unavailable(board: Board, params: dict[str, object]) -> str | None:
    """Why no frame of a UVC gadget case (its `transfer`, `streaming_interval`, `streaming_maxburst`) can stream
    on `board`, or None: bulk needs the pair's `uvc.bulk` or `uvc.gadgetfs`. Applied at collection."""
    transfer = str(params.get("transfer"))
    interval, maxburst = (int(str(params.get(name, default))) for name, default in SERVICE_DEFAULTS.items())
    if nonsense := uvc_service_unavailable(transfer, getattr(board.config.link, "speed", ""), interval, maxburst):
        return nonsense
    bulk = transfer == "bulk"
    uvc = board.settings(UvcSettings)
    supported = bulk and (uvc.bulk or uvc.gadgetfs)
    return uvc_unavailable(getattr(board.config.link, "udc", None), bulk=bulk, bulk_supported=supported)


def camera_stream_unavailable(board: Board, params: dict[str, object]) -> str | None:
    """Why the board's camera cannot stream on `board` (over bulk with `camera.gadgetfs`), or None."""
    bulk = board.settings(CameraSettings).gadgetfs
    if bulk and str(params.get("stream", "")).startswith("h264"):
        return "hil's GadgetFS camera (camera.gadgetfs) streams YUYV and MJPEG, not H264: a real H264 camera needed"
    return uvc_unavailable(getattr(board.config.link, "udc", None), bulk=bulk, bulk_supported=bulk)


def uvc_source_command(device: str, fmt: str, width: int, height: int, *, max_payload: int) -> str:
    """The gadget-side frame source hil runs in the background (hil/tools/uvc_source.c)."""
    if fmt not in UVC_SOURCE_FORMATS:
        raise ValueError(f"format must be one of {UVC_SOURCE_FORMATS}, got {fmt!r}")
    return shell.cmd(UVC_SOURCE, device, fmt, width, height, max_payload)


@contextlib.contextmanager
def uvc_gadget(pair: BoardPair, camera: Uvc) -> Iterator[GadgetOnLink]:
    """The pair's device role streaming as `camera`, enumerated by the host: hil's GadgetFS camera for a bulk
    camera on a pair with uvc.gadgetfs, else the configfs UVC function fed by uvc_source (the gadget stays
    off the bus until uvc_source opens its video node)."""

    def frame_source(gadget: GadgetBackend) -> contextlib.AbstractContextManager[object]:
        node = camera.video_node(pair.device)
        max_payload = camera.max_payload(pair.link.speed)
        command = uvc_source_command(node, camera.fmt, camera.width, camera.height, max_payload=max_payload)
        return pair.device.background(command, ready=r"uvc_source ready", name="uvc_source")

    gadgetfs = camera.bulk and pair.settings(UvcSettings).gadgetfs
    backend = (lambda udc: GadgetfsCamera(pair.device, udc, camera)) if gadgetfs else None
    with gadget_on(pair, camera, backend=backend, attach=None if gadgetfs else frame_source) as gadget:
        yield gadget


def numbered_frames(gadget: GadgetOnLink) -> bool:
    """Whether the host can check frame counters: hil's GadgetFS camera sends every frame it numbers; f_uvc may
    drop one uvc_source numbered (an underrun), which the check would take for a corrupt one."""
    return isinstance(gadget.gadget, GadgetfsCamera)


@contextlib.contextmanager
def board_camera(pair: BoardPair, fmt: str, width: int, height: int) -> Iterator[str]:
    """The capture node of the camera on the board (the host role): camera.device, else the one uvcvideo
    registered; with camera.gadgetfs, the board's own GadgetFS bulk camera seen through the pair's link."""
    if pair.settings(CameraSettings).gadgetfs:
        camera = Uvc(fmt=fmt, width=width, height=height, bulk=True)
        with gadget_on(pair, camera, backend=lambda udc: GadgetfsCamera(pair.device, udc, camera)) as gadget:
            yield uvc_capture_node(pair.host, gadget.usb_device)
        return
    yield pair.settings(CameraSettings).device or board_camera_node(pair.host)


def _capture_nodes(role: Role, parent: str) -> list[str]:
    """Capture nodes (index 0) below a sysfs directory, as /dev paths."""
    script = (
        f"for v in {shlex.quote(parent)}/*/video4linux/video*; do "
        '[ -e "$v/index" ] && [ "$(cat "$v/index")" = 0 ] && echo "/dev/${v##*/}"; done; true'
    )
    return [node for node in role.run(script, check=False).split() if node.startswith("/dev/video")]


def uvc_capture_node(host: Role, device: UsbDevice, *, timeout_s: float = 30.0) -> str:
    """The capture node uvcvideo made for an enumerated USB device (waits for the driver to bind)."""
    deadline = time.monotonic() + timeout_s
    while True:
        nodes = _capture_nodes(host, device.sysfs)
        if len(nodes) == 1:
            return nodes[0]
        if len(nodes) > 1:
            raise LabError(f"{host.label}: {device.sysfs} has several capture nodes: {', '.join(nodes)}")
        if time.monotonic() > deadline:
            raise LabError(f"{host.label}: uvcvideo registered no capture node for {device.sysfs} in {timeout_s:g} s")
        time.sleep(POLL_S)


def board_camera_node(role: Role) -> str:
    """The one capture node uvcvideo registered on the board (a camera plugged into it)."""
    script = (
        "for v in /sys/class/video4linux/video*; do "
        'case "$(readlink -f "$v/device/driver")" in */uvcvideo) '
        '[ "$(cat "$v/index")" = 0 ] && echo "/dev/${v##*/}";; esac; done; true'
    )
    nodes = [node for node in role.run(script, check=False).split() if node.startswith("/dev/video")]
    if len(nodes) != 1:
        raise LabError(
            f"{role.label}: expected one USB camera (uvcvideo capture node), found {', '.join(nodes) or 'none'}: "
            "set camera.device in boards.yaml"
        )
    return nodes[0]
