"""hil.measure.netdev's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

import re
from typing import Any

from hil.measure.parsing import without_kernel_messages

from .edits import (
    Edit,
    Oracle,
    carriage_return,
    earlier_whole_last_garbled,
    on_last_line,
)


def _netdev_oracle(text: str, asked: dict[str, Any], result: dict[str, int]) -> None:
    lines = [line.strip() for line in without_kernel_messages(text.replace("\r", "\n")).split("\n") if line.strip()]
    assert len(lines) == len(asked["names"]) == len(result), (lines, result)
    for name in asked["names"]:
        (value,) = [line.split(f"/statistics/{name}:")[1] for line in lines if f"/statistics/{name}:" in line]
        assert value.isascii() and value.isdigit() and int(value) == result[name], (name, value)


ORACLES: dict[str, Oracle] = {
    "hil.measure.netdev.parse_statistics": _netdev_oracle,
}
NETDEV: dict[str, Edit] = {
    "a counter garbled": on_last_line(r":([0-9]+)$", lambda m: f":{m[1]}a"),
    "a counter cut": on_last_line(r":([0-9]+)$", lambda m: ":"),
    "a counter given twice": earlier_whole_last_garbled("/statistics/", lambda line: line),
    "a counter overwritten after a CR": earlier_whole_last_garbled("/statistics/", carriage_return),
    "a counter missing": lambda text, asked: (text, {**asked, "names": [*asked["names"], "collisions"]}),
    "a line of another interface": lambda text, asked: (
        re.sub(r"/sys/class/net/[^/]+/", "/sys/class/net/other0/", text, count=1),
        asked,
    ),
}


INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.netdev.parse_statistics": NETDEV,
}
