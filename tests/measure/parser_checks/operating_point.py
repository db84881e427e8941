"""hil.measure.operating_point's parser: its fuzz oracle (each line read back by splitting it)."""

from __future__ import annotations

from typing import Any

from hil.measure.operating_point import OperatingPoint

from .edits import Edit, Oracle, clean_lines, earlier_whole_last_garbled, on_last_line, two_runs


def _oracle(text: str, asked: dict[str, Any], point: OperatingPoint) -> None:
    lines = [line.split() for line in clean_lines(text) if line.strip()]
    assert lines[-1] == ["end"]
    online = {words[1]: words[2] == "1" for words in lines if words[0] == "online"}
    links = {words[1]: f"{words[2]} x{int(words[3])}" for words in lines if words[0] == "link"}
    assert (point.online, point.links) == (online, links)
    resets = [int(words[1]) for words in lines if words[0] == "usb_resets"]
    assert point.usb_resets == (resets[-1] if resets else 0)


ORACLES: dict[str, Oracle] = {"hil.measure.operating_point.parse": _oracle}
POINT: dict[str, Edit] = {
    "cut before its end": lambda text, asked: (text.rstrip("\n").removesuffix("end"), asked),
    "two snapshots joined": two_runs,
    "a reading given twice, the last another": earlier_whole_last_garbled(
        "online cpu", lambda line: line[:-1] + ("0" if line.endswith("1") else "1")
    ),
    "a line cut by a kernel message": earlier_whole_last_garbled(
        "link ", lambda line: line[:12] + "[   12.345678] usb 1-1: reset high-speed USB device\n" + line[12:]
    ),
    "a count that is no number": on_last_line(r"usb_resets [0-9]*", lambda m: "usb_resets 1O", line_from_end=2),
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {"hil.measure.operating_point.parse": POINT}
