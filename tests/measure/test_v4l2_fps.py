"""v4l2_fps's summary line, from real runs of hil/tools/v4l2_fps.c on the virtual board: against vivid
(tests/data/v4l2_fps/capture.sh: dummy_hcd has no isochronous endpoints, so the figures are vivid's) and
against hil's GadgetFS bulk camera through dummy_hcd (the gadgetfs-* captures, with frame counters)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from hil.measure import v4l2_fps
from hil.measure.parsing import PARSERS
from hil.verdict.errors import MeasurementError, ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "v4l2_fps"
ASKED = {"fmt": "yuyv", "width": 640, "height": 480, "frames": 300}


def _read(name: str) -> str:
    return (DATA / f"{name}.txt").read_text()


def _fields(text: str) -> dict[str, str]:
    line = next(line for line in text.splitlines() if line.startswith("v4l2_fps "))
    return dict(part.split("=") for part in line.split()[1:])


def test_the_parser_joins_the_registry_with_what_each_capture_asked():
    registered = PARSERS["hil.measure.v4l2_fps.parse"]
    assert registered.data == "v4l2_fps"
    assert registered.asked is not None
    assert registered.asked("v4l2_fps /dev/video0 mjpeg 1280 720 300 10") == {
        "fmt": "mjpeg",
        "width": 1280,
        "height": 720,
        "frames": 300,
    }


def test_a_real_run_parses_with_fps_from_span_and_frames():
    text = _read("vivid-yuyv-640x480")
    rate = v4l2_fps.parse(text, **ASKED)
    fields = _fields(text)
    assert (rate.format, rate.width, rate.height, rate.frames) == ("yuyv", 640, 480, 300)
    assert rate.span_s == int(fields["span_us"]) / 1e6
    assert rate.fps == pytest.approx(299 / rate.span_s)
    assert rate.fps == pytest.approx(float(fields["fps"]), abs=0.0005)
    # vivid under TCG could not keep up: the sequence numbers skipped 3 frames
    assert (rate.dropped, rate.corrupt) == (3, 0)


@pytest.mark.parametrize(
    "name",
    [
        "vivid-yuyv-320x240-not-offered",
        "vivid-mjpeg-not-offered",
        "vivid-yuyv-641x480-adjusted",
        "missing-device",
        "one-frame-usage",
    ],
)
def test_a_refused_run_prints_no_summary(name):
    source = dict(line.split(": ", 1) for line in (DATA / f"{name}.source").read_text().splitlines())
    assert source["exit"] != "0"
    asked = PARSERS["hil.measure.v4l2_fps.parse"].asked(source["command"])
    with pytest.raises(ParseError, match="no summary line") as caught:
        v4l2_fps.parse(_read(name), **asked)
    assert caught.value.raw_output == _read(name)


@pytest.mark.parametrize(
    ("asked", "reason"),
    [
        ({**ASKED, "fmt": "mjpeg"}, "asked for mjpeg"),
        ({**ASKED, "width": 1280}, "asked for"),
        ({**ASKED, "frames": 600}, "x600"),
    ],
)
def test_a_run_of_something_else_than_asked_is_refused(asked, reason):
    with pytest.raises(ParseError, match=reason):
        v4l2_fps.parse(_read("vivid-yuyv-640x480"), **asked)


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ("fps=4.950", "fps=5.950", "contradicts its frames and span"),
        ("dropped=3", "dropped=0", "sequence numbers contradict"),
        ("bytes=184320000", "bytes=184320002", "not 300 whole YUYV frames"),
        ("corrupt=0", "corrupt=301", "more corrupt frames than frames"),
        ("span_us=60403495", "span_us=0", "no time span"),
        ("fps=4.950 ", "fps=4.950 extra=1 ", "malformed summary line"),
    ],
)
def test_a_summary_that_contradicts_itself_is_refused(old, new, reason):
    text = _read("vivid-yuyv-640x480")
    assert old in text
    with pytest.raises(ParseError, match=reason):
        v4l2_fps.parse(text.replace(old, new), **ASKED)


def test_commands_quote_every_value():
    assert shlex.split(v4l2_fps.command("/dev/video 1", "yuyv", 640, 480, frames=300, timeout_s=10)) == [
        "v4l2_fps",
        "/dev/video 1",
        "yuyv",
        "640",
        "480",
        "300",
        "10",
    ]
    with pytest.raises(ValueError, match="format"):
        v4l2_fps.command("/dev/video0", "nv12", 640, 480, frames=300, timeout_s=10)
    # Seed 000 table 2-1's H264 column: a camera's stream is checked frame by frame (Annex B start code);
    # hil's own cameras have no H264, so no frame counter to check there.
    assert shlex.split(v4l2_fps.command("/dev/video0", "h264", 1920, 1080, frames=300, timeout_s=10))[2] == "h264"
    with pytest.raises(ValueError, match="no H264"):
        v4l2_fps.command("/dev/video0", "h264", 1920, 1080, frames=300, timeout_s=10, counter=True)
    with pytest.raises(ValueError, match="frames"):
        v4l2_fps.command("/dev/video0", "yuyv", 640, 480, frames=1, timeout_s=10)


class _Board:
    """What a role's console returned for one command (the capture), so run()'s glue can be checked."""

    label = "board"

    def __init__(self, status: int, output: str) -> None:
        self.status, self.output, self.commands = status, output, []

    def run_status(self, command: str, timeout: float) -> tuple[int, str]:
        self.commands.append(command)
        return self.status, self.output


def test_run_gives_fps_dropped_and_corrupt_in_one_measurement():
    board = _Board(0, _read("vivid-yuyv-640x480"))
    measurement = v4l2_fps.run(board, "/dev/video0", "yuyv", 640, 480, frames=300)
    assert board.commands == ["v4l2_fps /dev/video0 yuyv 640 480 300 10"]
    assert set(measurement.values) == {"fps", "dropped", "corrupt"}
    assert measurement.values["dropped"].value == 3
    assert measurement.raw == _read("vivid-yuyv-640x480")


def test_a_failed_run_is_a_measurement_error_with_its_output():
    board = _Board(1, _read("vivid-mjpeg-not-offered"))
    with pytest.raises(MeasurementError, match="exited 1") as caught:
        v4l2_fps.run(board, "/dev/video0", "mjpeg", 1280, 720, frames=300)
    assert "instead of 1280x720 mjpeg" in caught.value.raw_output


@pytest.mark.parametrize(("name", "dropped"), [("reordered", 0), ("dropped", 1)])
def test_a_counted_run_of_hils_camera_parses_with_its_notes_left_aside(name, dropped):
    """uvcvideo finishes bulk frames on worker threads, so two can come back swapped: v4l2_fps names that on
    stderr, and the frame counters (matching the sequence numbers) show no frame was corrupt."""
    text = _read(f"gadgetfs-yuyv-640x480-counter-{name}")
    source = dict(
        line.split(": ", 1) for line in (DATA / f"gadgetfs-yuyv-640x480-counter-{name}.source").read_text().splitlines()
    )
    asked = PARSERS["hil.measure.v4l2_fps.parse"].asked(source["command"])
    assert asked == ASKED
    assert "v4l2_fps counters first=" in text and "v4l2_fps: sequence " in text
    rate = v4l2_fps.parse(text, **asked)
    assert (rate.frames, rate.dropped, rate.corrupt) == (300, dropped, 0)


@pytest.mark.parametrize(("paused_s", "retries"), [(6, 1), (12, 2)])
def test_a_format_request_lost_on_the_wire_is_asked_again_and_counted(paused_s, retries):
    """The camera stopped for a while: uvcvideo's probe control requests time out (EIO), v4l2_fps asks again."""
    name = f"gadgetfs-yuyv-640x480-counter-paused-{paused_s}s"
    board = _Board(0, _read(name))
    measurement = v4l2_fps.run(board, "/dev/video0", "yuyv", 640, 480, frames=30, counter=True)
    assert measurement.details["format_retries"] == retries
    assert measurement.values["corrupt"].value == 0


def test_the_counter_check_is_asked_for_on_the_command_line():
    assert v4l2_fps.command("/dev/video0", "yuyv", 640, 480, frames=300, timeout_s=10, counter=True).endswith(
        " 10 counter"
    )
    assert v4l2_fps.command("/dev/video0", "yuyv", 640, 480, frames=300, timeout_s=10).endswith(" 10")


def test_compressed_frames_of_no_bytes_are_no_frame_rate():
    """An MJPEG stream whose frames carry 0 bytes read as 30 fps before (issue 40): the real YUYV run's line,
    relabelled MJPEG, with bytes=0, and with the 4 bytes a frame's markers take at least."""
    text = _read("vivid-yuyv-640x480").replace("format=yuyv", "format=mjpeg")
    frames = int(_fields(text)["frames"])
    asked = {**ASKED, "fmt": "mjpeg"}
    with pytest.raises(ParseError, match=f"0 bytes cannot hold {frames} whole mjpeg frames"):
        v4l2_fps.parse(re.sub(r"bytes=[0-9]+", "bytes=0", text), **asked)
    rate = v4l2_fps.parse(re.sub(r"bytes=[0-9]+", f"bytes={4 * frames}", text), **asked)
    assert rate.bytes == 4 * frames
