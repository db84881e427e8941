"""UVC camera gadget (seed 000 tables 3-3 to 3-6): the board is the camera, the host streams >= 300 frames
and takes frames per second from the V4L2 buffer timestamps, with dropped and corrupt frames counted.

The board's camera is not paced (the highest rate the link carries): the configfs UVC function fed by
hil's uvc_source, or on pairs with uvc.gadgetfs hil's GadgetFS bulk camera (hil.lab.usb_host.camera.uvc_gadget);
the host runs v4l2_fps on the node uvcvideo made for it. Parameters: format and resolution, and the
transfer (isochronous with 1, 2 or 3 KiB per microframe, or bulk), and in the full matrix the isochronous
endpoint's service: f_uvc's streaming_interval (serviced every 2^(interval-1) microframes) and, at super speed,
streaming_maxburst (maxburst+1 packets per service). The quick suite asks for iso1024 and bulk at interval 1,
maxburst 0: a real board runs what its kernel has, the virtual lab (no isochronous endpoints) bulk. A service
setting a transfer or speed does not run (any on bulk, a burst below super speed) skips, saying why.
"""

import pytest

import hil
from hil.catalogue.usb_device import UvcSettings
from hil.lab.usb_gadget.gadget import Uvc
from hil.lab.usb_host.camera import numbered_frames, uvc_capture_node, uvc_gadget, uvc_stream_unavailable
from hil.measure import v4l2_fps

METRICS = ["usb.uvc.fps", "usb.uvc.dropped", "usb.uvc.corrupt"]
pytestmark = [
    pytest.mark.hil_metrics(*METRICS),
    pytest.mark.hil_unavailable.with_args(uvc_stream_unavailable),
    pytest.mark.hil_tools(host=["v4l2_fps"]),
]
STREAMS = {
    "yuyv-640x480": ("yuyv", 640, 480),
    "mjpeg-1280x720": ("mjpeg", 1280, 720),
    "mjpeg-1920x1080": ("mjpeg", 1920, 1080),
}
TRANSFERS = {"iso1024": 1024, "iso2048": 2048, "iso3072": 3072, "bulk": None}


@hil.matrix("streaming_maxburst", quick=[0], full=[0, 15], ids="maxburst={}")  # 15: the most, 16 per service
@hil.matrix("streaming_interval", quick=[1], full=[1, 4], ids="interval={}")  # 4: every 8 microframes, 1 ms
@hil.matrix("stream", quick=["yuyv-640x480"], full=list(STREAMS), ids="{}")
@hil.matrix("transfer", quick=["iso1024", "bulk"], full=list(TRANSFERS), ids="{}")
def test_uvc_fps(pair, perf, stream, transfer, streaming_interval, streaming_maxburst):
    uvc = pair.settings(UvcSettings)
    fmt, width, height = STREAMS[stream]
    bulk = transfer == "bulk"
    camera = Uvc(
        fmt=fmt,
        width=width,
        height=height,
        maxpacket=TRANSFERS[transfer] or 1024,
        interval=streaming_interval,
        maxburst=streaming_maxburst,
        bulk=bulk,
    )
    # The service settings are the isochronous endpoint's: in the results' keys of isochronous cases only.
    iso = {} if bulk else {"streaming_interval": streaming_interval, "streaming_maxburst": streaming_maxburst}
    with uvc_gadget(pair, camera) as gadget:
        node = uvc_capture_node(pair.host, gadget.usb_device)
        perf.check(
            METRICS,
            stream=stream,
            transfer=transfer,
            **iso,
            facts={"tool": "v4l2_fps + uvc_source or uvc_gadgetfs (hil/tools)", "host_node": node},
            sample=lambda: v4l2_fps.run(
                pair.host,
                node,
                fmt,
                width,
                height,
                frames=uvc.frames,
                frame_timeout_s=uvc.frame_timeout_s,
                counter=numbered_frames(gadget),
            ),
        )
