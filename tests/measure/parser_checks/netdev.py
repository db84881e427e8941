"""hil.measure.netdev's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

from typing import Any

from hil.measure.parsing import without_kernel_messages

from .edits import (
    Oracle,
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
NOT_YET: dict[str, str] = {
    "hil.measure.netdev.parse_statistics": "one counter per line: a cut digit is another valid counter",
}
