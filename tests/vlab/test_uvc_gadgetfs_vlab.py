"""hil's GadgetFS bulk UVC camera (hil/tools/uvc_gadgetfs.c, hil.lab.usb_gadget.uvc_gadgetfs) on the real virtual board:
frames cross dummy_hcd over bulk, whole and numbered in order, a new session restarts the stream, the speed
is high on a super-speed link, and the UDC is free afterwards even when the program was killed.

These boot a real QEMU board (TCG) and talk to it over its serial console through labgrid.
"""

from __future__ import annotations

import re

import pytest

from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.usb_gadget import udc
from hil.lab.usb_gadget.gadget import Ecm, Gadget, Uvc
from hil.lab.usb_gadget.uvc_gadgetfs import GADGETFS_FUNCTION, MOUNT, PROGRAM, GadgetfsCamera, udc_function
from hil.lab.usb_host import usbhost
from hil.lab.usb_host.camera import uvc_capture_node
from hil.measure import v4l2_fps
from hil.verdict.errors import MeasurementError
from hil.verdict.measurement import Measurement

UDC = "dummy_udc.0"


@pytest.fixture(autouse=True)
def _programs(vboard_with_programs):
    """hil's programs these tests run, deployed on the board first."""


def _counters(raw: str) -> tuple[int, int]:
    found = re.search(r"^v4l2_fps counters first=(\d+) last=(\d+)$", raw, re.M)
    assert found, raw
    return int(found[1]), int(found[2])


@pytest.mark.parametrize(
    ("camera", "frames"),
    [
        (Uvc(fmt="yuyv", width=640, height=480, bulk=True), 60),
        # 51704 B: three 16384 B payloads and a last one of 2558 B + 2 B header = 5 packets of 512 B, which
        # uvcvideo would not end: that payload gets a 12-byte header instead.
        (Uvc(fmt="yuyv", width=46, height=562, bulk=True), 100),
        (Uvc(fmt="mjpeg", width=1280, height=720, bulk=True), 300),
    ],
    ids=["yuyv-640x480", "yuyv-46x562-long-header", "mjpeg-1280x720"],
)
def test_frames_cross_dummy_hcd_over_bulk_whole_and_in_order(vboard, camera, frames):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    with GadgetfsCamera(vboard, UDC, camera) as gadget:
        assert udc_function(vboard, UDC) == GADGETFS_FUNCTION
        device = usbhost.wait_for_device(vboard, gadget.serial, timeout_s=60)
        assert device.speed == "high"
        node = uvc_capture_node(vboard, device, timeout_s=60)
        runs = [
            v4l2_fps.run(vboard, node, camera.fmt, camera.width, camera.height, frames=frames, counter=True)
            for _ in range(2)  # the second session restarts the stream on its probe and commit
        ]
    for run in runs:
        assert run.values["corrupt"].value == 0, run.raw
        assert run.details["frames"] == frames
        assert run.values["fps"].value > 0
    first, second = (_counters(run.raw) for run in runs)
    assert first[1] - first[0] + 1 >= frames  # dropped frames (no host buffer) leave gaps, never repeats
    assert second[0] > first[1], "the second session starts with frames the first never saw"
    sent = re.search(rf"^{PROGRAM} frames=(\d+)$", gadget.output, re.M)
    # whole frames the UDC took: each session's, not the one its STREAMOFF interrupted (its counter is skipped)
    assert sent and int(sent[1]) >= 2 * frames, gadget.output
    assert udc_function(vboard, UDC) == ""


def test_a_camera_that_answers_no_format_request_for_a_while_is_asked_again_then_given_up(vboard):
    """uvcvideo's probe control requests time out after 5 s (EIO): v4l2_fps asks twice more, each retry counted,
    and a camera that stays silent through all three is an error naming the request (CI saw one such timeout)."""
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    camera = Uvc(bulk=True)
    with GadgetfsCamera(vboard, UDC, camera) as gadget:
        node = uvc_capture_node(vboard, usbhost.wait_for_device(vboard, gadget.serial, timeout_s=60), timeout_s=60)

        def measure_after_a_pause(seconds: int) -> Measurement:
            pid = f"$(pidof {PROGRAM})"
            vboard.run(f"kill -STOP {pid}; (sleep {seconds}; kill -CONT {pid}) >/dev/null 2>&1 &")
            return v4l2_fps.run(vboard, node, "yuyv", 640, 480, frames=30, counter=True)

        run = measure_after_a_pause(6)
        assert run.details["format_retries"] == 1 and run.values["corrupt"].value == 0, run.raw
        with pytest.raises(MeasurementError, match="exited 1") as silent:
            measure_after_a_pause(17)
        assert silent.value.raw_output.count("asked again") == 2, silent.value.raw_output
        assert "v4l2_fps: VIDIOC_S_FMT: Input/output error\n" in silent.value.raw_output + "\n"


def test_on_a_super_speed_link_the_camera_runs_at_high_speed(vboard):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "true"})
    camera = Uvc(bulk=True)
    with GadgetfsCamera(vboard, UDC, camera) as gadget:
        device = usbhost.wait_for_device(vboard, gadget.serial, timeout_s=60)
        node = uvc_capture_node(vboard, device, timeout_s=60)
        run = v4l2_fps.run(vboard, node, "yuyv", 640, 480, frames=30, counter=True)
    assert (device.speed, device.speed_mbps) == ("high", 480.0)
    assert run.values["corrupt"].value == 0


def test_a_killed_camera_leaves_the_udc_free_for_a_configfs_gadget(vboard):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    with GadgetfsCamera(vboard, UDC, Uvc(bulk=True)) as gadget:
        usbhost.wait_for_device(vboard, gadget.serial, timeout_s=60)
        vboard.run(f"kill -KILL $(pidof {PROGRAM})")  # a crash: ep0 closes with the process
    assert gadget.process is not None and gadget.process.exit_status == 128 + 9
    assert udc_function(vboard, UDC) == ""
    assert vboard.run_status(shell.cmd("grep", "-q", f" {MOUNT} gadgetfs ", "/proc/mounts"))[0] != 0
    with Gadget(vboard, UDC, [Ecm()]) as configfs:
        assert udc_function(vboard, UDC) == configfs.name
        usbhost.wait_for_device(vboard, configfs.serial, timeout_s=60)


def test_a_udc_held_by_another_gadget_is_refused_and_left_alone(vboard):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    with Gadget(vboard, UDC, [Ecm()], name="other") as other:
        with (
            pytest.raises(LabError, match="held by gadget driver 'other'"),
            GadgetfsCamera(vboard, UDC, Uvc(bulk=True)),
        ):
            pass
        assert udc_function(vboard, UDC) == "other"
        usbhost.wait_for_device(vboard, other.serial, timeout_s=60)
