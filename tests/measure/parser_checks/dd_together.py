"""hil.measure.dd_together's parser: its fuzz oracle (the figures read from the text by other means) and
invalidations (outputs that must never give a number)."""

from __future__ import annotations

from typing import Any

from hil.measure import dd_together
from hil.measure.parsing import without_kernel_messages

from .dd import _dd_oracle
from .edits import Edit, Oracle


def _together_oracle(text: str, asked: dict[str, Any], result: dd_together.Together) -> None:
    lines = [line.strip() for line in without_kernel_messages(text.replace("\r", "\n")).split("\n") if line.strip()]
    label, start, end = lines[0].split(" ")
    assert label == "together-ns" and result.seconds == (int(end) - int(start)) / 1e9 > 0
    heads = [n for n, line in enumerate(lines) if line.startswith("== disk ")]
    assert len(heads) == len(result.transfers) == len(asked["expected_bytes"])
    for at, end_at, transfer, expected in zip(
        heads, [*heads[1:], len(lines)], result.transfers, asked["expected_bytes"], strict=True
    ):
        assert lines[at].endswith(" exit 0"), lines[at]
        _dd_oracle("\n".join(lines[at + 1 : end_at]), {"expected_bytes": expected}, transfer)
        assert transfer.seconds <= result.seconds


def _replace(old: str, new: str) -> Edit:
    return lambda text, asked: (text.replace(old, new, 1), asked)


def _clock(change: Any) -> Edit:
    """An edit of the clock line's two stamps (`change(start, end) -> (start, end)`)."""

    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        first, rest = text.split("\n", 1)
        label, start, end = first.split(" ")
        return " ".join([label, *change(start, end)]) + "\n" + rest, asked

    return edit


TOGETHER = {
    "a dd that failed": _replace("== disk 1 exit 0", "== disk 1 exit 1"),
    "the second disk's output gone": lambda text, asked: (text.split("== disk 1")[0], asked),
    "a third disk asked for": lambda text, asked: (text, {"expected_bytes": [*asked["expected_bytes"], 1 << 20]}),
    "the clock line gone": lambda text, asked: (text.split("\n", 1)[1], asked),
    "the clock ends before it starts": _clock(lambda start, end: (end, start)),
    "a clock without nanoseconds": _clock(lambda start, end: (start[:10], str(int(start[:10]) + 1))),
    "the disks swapped": lambda text, asked: (
        text.replace("== disk 0", "== disk X").replace("== disk 1", "== disk 0").replace("== disk X", "== disk 1"),
        asked,
    ),
    "bytes other than asked": lambda text, asked: (
        text,
        {"expected_bytes": [b + 512 for b in asked["expected_bytes"]]},
    ),
}

ORACLES: dict[str, Oracle] = {"hil.measure.dd_together.parse": _together_oracle}
INVALIDATIONS: dict[str, dict[str, Edit]] = {"hil.measure.dd_together.parse": TOGETHER}
