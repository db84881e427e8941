"""hil.measure.v4l2_fps's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

import math
from typing import Any

from .edits import (
    Edit,
    Oracle,
    field,
    on_last_line,
    rate_doubled,
)


def _v4l2_fps_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    # A CR ends a line, as on a serial console (hil.measure.parsing.output_lines): a summary after one is a line.
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    line = [line for line in lines if line.startswith("v4l2_fps ")][-1]
    fields = dict(part.split("=", 1) for part in line.split(" ")[1:])
    assert (fields["format"], int(fields["width"]), int(fields["height"]), int(fields["frames"])) == (
        asked["fmt"],
        asked["width"],
        asked["height"],
        asked["frames"],
    )
    assert (result.dropped, result.corrupt, result.bytes) == tuple(
        int(fields[key]) for key in ("dropped", "corrupt", "bytes")
    )
    assert math.isclose(result.fps, (result.frames - 1) * 1e6 / int(fields["span_us"]))
    assert abs(float(fields["fps"]) - result.fps) < 0.001


V4L2 = {
    "fps x2": rate_doubled("fps"),
    "span other than the fps": field("span_us", lambda n: n * 2),
    "other size than asked": field("width", lambda n: n // 2),
    "dropped contradicts the sequence numbers": field("dropped", lambda n: n + 1),
    "bytes not whole frames": field("bytes", lambda n: n + 2),
    "more corrupt frames than frames": on_last_line(r"corrupt=0 ", lambda m: "corrupt=100000 "),
    # Frames 1 us apart at most: 299,000,000 fps from a span of 1 us, or faster than any camera's bus.
    "a span of 1 us": on_last_line(
        r"frames=([0-9]+) span_us=[0-9]+ fps=[0-9.]+", lambda m: f"frames={m[1]} span_us=1 fps={int(m[1]) - 1}e6"
    ),
    "a span of a microsecond a frame": on_last_line(
        r"frames=([0-9]+) span_us=[0-9]+ fps=[0-9.]+",
        lambda m: f"frames={m[1]} span_us={int(m[1]) - 2} fps={(int(m[1]) - 1) * 1e6 / (int(m[1]) - 2):.3f}",
    ),
    "bytes faster than USB4": on_last_line(
        r"frames=([0-9]+) span_us=[0-9]+ fps=[0-9.]+",
        lambda m: f"frames={m[1]} span_us={int(m[1]) * 10} fps={(int(m[1]) - 1) / (int(m[1]) * 10e-6):.3f}",
    ),
}


ORACLES: dict[str, Oracle] = {
    "hil.measure.v4l2_fps.parse": _v4l2_fps_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.v4l2_fps.parse": V4L2,
}
