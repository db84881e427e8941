"""hil.measure.iperf2's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hil.measure.parsing import without_kernel_messages

from .edits import (
    Edit,
    Oracle,
    two_runs,
)


def _iperf2_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    values, details = result
    lines = [line.strip() for line in without_kernel_messages(text).splitlines()]
    rows = [line.split(",") for line in lines if line and not line.endswith("WARNING: ack of last datagram failed.")]
    assert len(rows) == asked["streams"] == len({row[5] for row in rows}), rows
    assert all(len(row) == 14 and row[0].isascii() for row in rows), rows
    assert values["throughput"].value == sum(float(row[8]) for row in rows)
    assert details["datagrams"] == sum(int(row[11]) for row in rows) > 0
    assert values["loss"].value == 100 * sum(int(row[10]) for row in rows) / details["datagrams"]
    assert values["jitter"].value == max(float(row[9]) for row in rows) >= 0
    assert values["out_of_order"].value == sum(int(row[13]) for row in rows)
    assert values["out_of_order_per_datagram"].value == values["out_of_order"].value / details["datagrams"]


def _iperf2_field(index: int, value: Callable[[str], str]) -> Edit:
    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        lines = text.rstrip("\n").split("\n")
        last = max(i for i, line in enumerate(lines) if "," in line)  # the last report (warnings follow it)
        fields = lines[last].split(",")
        fields[index] = value(fields[index])
        lines[last] = ",".join(fields)
        return "\n".join(lines) + "\n", asked

    return edit


def _iperf2_row(change: Callable[[list[str]], dict[int, str]]) -> Edit:
    """The last report's fields replaced together (so that only the contradiction asked for remains)."""

    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        lines = text.rstrip("\n").split("\n")
        last = max(i for i, line in enumerate(lines) if "," in line)
        fields = lines[last].split(",")
        for index, value in change(fields).items():
            fields[index] = value
        lines[last] = ",".join(fields)
        return "\n".join(lines) + "\n", asked

    return edit


def _seconds(fields: list[str]) -> float:
    start, end = fields[6].split("-")
    return float(end) - float(start)


IPERF2 = {
    "rate x2": _iperf2_field(8, lambda v: str(int(v) * 2)),
    "bytes other than the datagrams": _iperf2_field(7, lambda v: str(int(v) - 1000)),
    "more copies than the modem makes": _iperf2_field(13, lambda v: str(int(v) * 2)),
    "loss other than lost / total": _iperf2_field(12, lambda v: f"{float(v) + 5:.3f}"),
    "a client's own line": _iperf2_field(11, lambda v: "-1"),
    "a stream missing": lambda text, asked: (text, {**asked, "streams": asked["streams"] + 1}),
    "two runs joined": two_runs,
    "a run shorter than asked": lambda text, asked: (text, {**asked, "duration_s": asked["duration_s"] * 2}),
    "no server": lambda text, asked: (text + "read failed: Connection refused\n", asked),
    "bytes a tenth of the datagrams, 0% loss": _iperf2_row(
        lambda f: {
            7: str(int(f[11]) // 10 * 1470),
            8: str(round(int(f[11]) // 10 * 1470 * 8 / _seconds(f))),
            10: "0",
            12: "0.000",
        }
    ),
    "a report longer than asked": _iperf2_row(lambda f: {6: "0.0-20.0", 8: str(int(f[7]) * 8 // 20)}),
    "the modem makes one copy more than asked": lambda text, asked: (
        text,
        {**asked, "replication": asked["replication"] - 1} if asked["replication"] > 1 else asked,
    ),
}


ORACLES: dict[str, Oracle] = {
    "hil.measure.iperf2.parse_udp_server": _iperf2_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.iperf2.parse_udp_server": IPERF2,
}
