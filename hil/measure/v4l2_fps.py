"""Frame rate of a V4L2 camera (a UVC gadget seen by uvcvideo, or a camera on the board) from the driver's
buffer timestamps: hil's v4l2_fps (hil/tools/v4l2_fps.c) streams N mmap frames, checks each one and prints

    v4l2_fps format=yuyv width=640 height=480 frames=300 span_us=9966642 fps=30.000 dropped=0 corrupt=0
             bytes=184320000 first_seq=0 last_seq=299

One run gives `fps`, `dropped` (frames the sequence numbers skipped) and `corrupt` (the error flag, a YUYV
size other than width*height*2, MJPEG without SOI/EOI markers; with `counter`, a frame counter of hil's own
cameras that does not increase).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure.parsing import ascii_float, ascii_int, one_of, output_lines, parser, run_timed, under_ceiling
from hil.verdict.errors import MeasurementError, ParseError
from hil.verdict.measurement import Measurement, Quantity

PROGRAM = "v4l2_fps"
FORMATS = ("yuyv", "mjpeg", "h264")
MIN_FRAMES = 2
MIN_COMPRESSED_FRAME = 4  # bytes: a frame's markers, which v4l2_fps.c checks
# The fastest bus a camera streams over (USB4, 40 Gbit/s): frames' bytes faster than this are no frames.
LINK_CEILING_BYTES_PER_S = 40e9 / 8
_FORMAT_RETRY = re.compile(rf"^{PROGRAM}: VIDIOC_S_FMT: .*: asked again$", re.M)
_LINE = re.compile(
    r"v4l2_fps format=(?P<format>\S+) width=(?P<width>\S+) height=(?P<height>\S+) frames=(?P<frames>\S+) "
    r"span_us=(?P<span_us>\S+) fps=(?P<fps>\S+) dropped=(?P<dropped>\S+) corrupt=(?P<corrupt>\S+) "
    r"bytes=(?P<bytes>\S+) first_seq=(?P<first_seq>\S+) last_seq=(?P<last_seq>\S+)"
)


@dataclass(frozen=True)
class FrameRate:
    format: str
    width: int
    height: int
    frames: int
    span_s: float
    fps: float  # (frames - 1) / span, recomputed from the integers
    dropped: int
    corrupt: int
    bytes: int


def _asked(command: str) -> dict[str, object]:
    """What a capture's command line asked for: v4l2_fps DEVICE FORMAT WIDTH HEIGHT FRAMES TIMEOUT_S."""
    args = shlex.split(command)
    return {"fmt": args[2], "width": int(args[3]), "height": int(args[4]), "frames": int(args[5])}


@parser("v4l2_fps", asked=_asked)
def parse(text: str, *, fmt: str, width: int, height: int, frames: int) -> FrameRate:
    """The summary line, checked against what was asked and against itself (fps from span and frames)."""
    lines = [line for line in output_lines(text, PROGRAM) if line.startswith(f"{PROGRAM} ")]
    if not lines:
        raise ParseError(f"{PROGRAM} printed no summary line", raw_output=text)
    m = _LINE.fullmatch(lines[-1])
    if m is None:
        raise ParseError(f"{PROGRAM}: malformed summary line {lines[-1][:200]!r}", raw_output=text)
    ints = {
        key: ascii_int(m[key], key, text)
        for key in ("width", "height", "frames", "span_us", "dropped", "corrupt", "bytes", "first_seq", "last_seq")
    }
    if (m["format"], ints["width"], ints["height"], ints["frames"]) != (fmt, width, height, frames):
        raise ParseError(
            f"{PROGRAM} reports {m['format']} {ints['width']}x{ints['height']} x{ints['frames']} frames, "
            f"asked for {fmt} {width}x{height} x{frames}",
            raw_output=text,
        )
    # The buffers' timestamps count microseconds: each frame after the first is at least one tick later.
    if ints["frames"] < MIN_FRAMES or ints["span_us"] < ints["frames"] - 1:
        raise ParseError(f"{PROGRAM} measured no time span (frames a microsecond apart): {lines[-1]!r}", text)
    under_ceiling(ints["bytes"], ints["span_us"] / 1e6, LINK_CEILING_BYTES_PER_S, PROGRAM, text)
    # Sequence numbers: every frame received or dropped lies between the first and the last one.
    if ints["last_seq"] - ints["first_seq"] + 1 != ints["frames"] + ints["dropped"]:
        raise ParseError(f"{PROGRAM}: sequence numbers contradict frames and dropped: {lines[-1]!r}", text)
    if ints["corrupt"] > ints["frames"]:
        raise ParseError(f"{PROGRAM}: more corrupt frames than frames: {lines[-1]!r}", raw_output=text)
    if fmt == "yuyv" and ints["corrupt"] == 0 and ints["bytes"] != ints["frames"] * width * height * 2:
        raise ParseError(f"{PROGRAM}: {ints['bytes']} bytes are not {frames} whole YUYV frames", raw_output=text)
    # A compressed frame the program did not call corrupt holds its start and end markers (MJPEG's SOI and EOI,
    # H.264's start code): 4 bytes at least (v4l2_fps.c corrupt_frame).
    if fmt != "yuyv" and ints["bytes"] < MIN_COMPRESSED_FRAME * (ints["frames"] - ints["corrupt"]):
        whole = ints["frames"] - ints["corrupt"]
        raise ParseError(f"{PROGRAM}: {ints['bytes']} bytes cannot hold {whole} whole {fmt} frames", raw_output=text)
    span_s = ints["span_us"] / 1e6
    fps = (ints["frames"] - 1) / span_s
    printed = ascii_float(m["fps"], "fps", text)
    if abs(printed - fps) > 0.0005 + fps * 1e-9:  # the program prints 3 decimals
        raise ParseError(f"{PROGRAM}: fps={m['fps']} contradicts its frames and span", raw_output=text)
    return FrameRate(fmt, width, height, ints["frames"], span_s, fps, ints["dropped"], ints["corrupt"], ints["bytes"])


def command(
    device: str, fmt: str, width: int, height: int, *, frames: int, timeout_s: int, counter: bool = False
) -> str:
    """counter: the camera is one of hil's (uvc_frames.h), whose frame counters v4l2_fps checks."""
    one_of(fmt, FORMATS, "format")
    if frames < MIN_FRAMES:
        raise ValueError(f"at least {MIN_FRAMES} frames give a frame rate, got {frames}")
    if counter and fmt == "h264":
        raise ValueError("hil's own cameras stream no H264: there is no frame counter to check")
    return shell.cmd(PROGRAM, device, fmt, width, height, frames, timeout_s, *(["counter"] if counter else []))


def run(
    role: Role,
    device: str,
    fmt: str,
    width: int,
    height: int,
    *,
    frames: int = 300,
    frame_timeout_s: int = 10,
    counter: bool = False,
) -> Measurement:
    """Stream `frames` frames from `device` on `role` (timed there): `fps`, `dropped` and `corrupt`
    (`counter`: the camera is hil's own, its frame counters are checked too)."""
    cmd = command(device, fmt, width, height, frames=frames, timeout_s=frame_timeout_s, counter=counter)
    timeout = frames * frame_timeout_s + 60
    output, started, duration = run_timed(role, cmd, PROGRAM, timeout=timeout, error=MeasurementError)
    rate = parse(output, fmt=fmt, width=width, height=height, frames=frames)
    return Measurement(
        {
            "fps": Quantity(rate.fps, "fps"),
            "dropped": Quantity(float(rate.dropped), "frames"),
            "corrupt": Quantity(float(rate.corrupt), "frames"),
        },
        raw=output,
        started=started,
        duration_s=duration,
        details={
            "format": fmt,
            "width": width,
            "height": height,
            "frames": rate.frames,
            "span_s": rate.span_s,
            # format requests uvcvideo lost on the wire and v4l2_fps asked again (a flaky control endpoint)
            "format_retries": len(_FORMAT_RETRY.findall(output)),
        },
    )
