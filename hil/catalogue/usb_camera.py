"""A USB camera on the board (seed 000 §2.3 "USB Camera 性能分析"): the board is the USB host, uvcvideo
drives the camera, and the frame rate comes from V4L2 buffer timestamps, per format and resolution
(table 2-1). The measuring path is the UVC gadget's (hil.measure.v4l2_fps)."""

from __future__ import annotations

from dataclasses import dataclass

from hil.catalogue.model import Family, Setting
from hil.catalogue.usb_device import _frame_metric

SEED = 'seed 000 §2.3 "USB Camera 性能分析", table 2-1'


@dataclass(frozen=True)
class CameraSettings:
    device: str
    frames: int
    frame_timeout_s: int
    gadgetfs: bool


CAMERA = Family(
    view=CameraSettings,
    name="usb.camera",
    title="USB camera on the board",
    metrics=tuple(
        _frame_metric("usb.camera", what, SEED, "captured by the board") for what in ("fps", "dropped", "corrupt")
    ),
    settings=(
        Setting("camera.device", str, "", "the camera's V4L2 node; empty: the one capture node uvcvideo registers"),
        Setting("camera.frames", int, 300, "frames streamed per sample (the issue asks for >= 300)", 300, 1_000_000),
        Setting("camera.frame_timeout_s", int, 10, "seconds to wait for any one frame before it is an error", 1, 600),
        Setting(
            "camera.gadgetfs",
            bool,
            False,
            "the camera is the board's own GadgetFS bulk camera (uvc_gadgetfs) seen through the pair's USB link: "
            "the virtual lab, where host and device are one board",
        ),
    ),
)

FAMILIES = (CAMERA,)
