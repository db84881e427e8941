"""A USB camera on the board (seed 000 §2.3, table 2-1): the board is the USB host, uvcvideo drives the
camera, and the board streams >= 300 frames per format and resolution, timed by the driver's buffer
timestamps (the UVC gadget's measuring path, hil.measure.v4l2_fps).

On the virtual lab the camera is the board's own gadget seen through dummy_hcd: f_uvc cannot stream there
(hil.lab.usb_host.camera.NO_ISO_ON_DUMMY_HCD), so a pair with camera.gadgetfs streams from hil's GadgetFS bulk
camera instead (hil.lab.usb_host.camera.board_camera); other virtual pairs skip with that reason.
"""

import pytest

import hil
from hil.catalogue.usb_camera import CameraSettings
from hil.lab.usb_host.camera import board_camera, camera_stream_unavailable
from hil.measure import v4l2_fps

METRICS = ["usb.camera.fps", "usb.camera.dropped", "usb.camera.corrupt"]
pytestmark = [
    pytest.mark.hil_metrics(*METRICS),
    pytest.mark.hil_unavailable.with_args(camera_stream_unavailable),
    pytest.mark.hil_tools(host=["v4l2_fps"]),
]
# Table 2-1's formats: each frame checked (YUYV's size, MJPEG's SOI/EOI, H264's Annex B start code).
STREAMS = {
    "yuyv-640x480": ("yuyv", 640, 480),
    "mjpeg-1280x720": ("mjpeg", 1280, 720),
    "h264-1920x1080": ("h264", 1920, 1080),
}


@hil.matrix("stream", quick=["yuyv-640x480"], full=list(STREAMS), ids="{}")
def test_camera_fps(pair, perf, stream):
    fmt, width, height = STREAMS[stream]
    camera = pair.settings(CameraSettings)
    with board_camera(pair, fmt, width, height) as node:
        perf.check(
            METRICS,
            stream=stream,
            facts={"tool": "v4l2_fps (hil/tools)", "camera_node": node},
            cpu_load_on="host",
            sample=lambda: v4l2_fps.run(
                pair.host,
                node,
                fmt,
                width,
                height,
                frames=camera.frames,
                frame_timeout_s=camera.frame_timeout_s,
                counter=camera.gadgetfs,  # hil's own camera numbers its frames
            ),
        )
