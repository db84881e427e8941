"""hil.measure.operating_point's parser: its fuzz oracle (each line read back by splitting it)."""

from __future__ import annotations

from typing import Any

from hil.measure.operating_point import OperatingPoint

from .edits import Oracle, clean_lines


def _oracle(text: str, asked: dict[str, Any], point: OperatingPoint) -> None:
    lines = [line.split() for line in clean_lines(text) if line.strip()]
    assert lines[-1] == ["end"]
    online = {words[1]: words[2] == "1" for words in lines if words[0] == "online"}
    links = {words[1]: f"{words[2]} x{int(words[3])}" for words in lines if words[0] == "link"}
    assert (point.online, point.links) == (online, links)
    resets = [int(words[1]) for words in lines if words[0] == "usb_resets"]
    assert point.usb_resets == (resets[-1] if resets else 0)


ORACLES: dict[str, Oracle] = {"hil.measure.operating_point.parse": _oracle}
NOT_YET: dict[str, str] = {
    "hil.measure.operating_point.parse": "state, not a figure: what moved is what counts (moved() is tested alone)",
}
