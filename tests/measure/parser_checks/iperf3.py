"""hil.measure.iperf3's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .edits import (
    Edit,
    Oracle,
    json_document,
    json_edit,
    scale,
    two_runs,
)


def _iperf3_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    values, details = result
    received = json_document(text)["end"]["sum_received"]
    assert values["throughput"].value == received["bits_per_second"]
    assert details["bytes_received"] == received["bytes"]
    assert math.isclose(float(received["bytes"]) * 8 / received["seconds"], received["bits_per_second"], rel_tol=0.02)
    if "jitter" in values:
        assert values["jitter"].value == received["jitter_ms"]
        assert values["loss"].value == received["lost_percent"]


def _iperf(change: Callable[[dict[str, Any]], None]) -> Edit:
    return json_edit(lambda d: change(d["end"]))


def _received_more_than_sent(end: dict[str, Any]) -> None:
    factor = 2 * max(end["sum_sent"]["bytes"], 1) / end["sum_received"]["bytes"]
    scale(("sum_received", "bytes"), factor, integer=True)(end)
    scale(("sum_received", "bits_per_second"), factor)(end)


def _received_in_a_200th(end: dict[str, Any]) -> None:
    """The receiver's interval cut to a 200th, its rate raised to match: consistent, and 200x the throughput."""
    scale(("sum_received", "seconds"), 1 / 200)(end)
    scale(("sum_received", "bits_per_second"), 200)(end)


IPERF_TCP: dict[str, Edit] = {
    "a report longer than asked": json_edit(lambda d: d["start"]["test_start"].update(duration=0.2)),
    "received in a 200th of the time, rate to match": _iperf(_received_in_a_200th),
    "rate x2": _iperf(scale(("sum_received", "bits_per_second"), 2)),
    "seconds x2": _iperf(scale(("sum_received", "seconds"), 2)),
    "received more than sent": _iperf(_received_more_than_sent),
    "two runs": two_runs,
}


def _all_lost(end: dict[str, Any]) -> None:
    end["sum_received"].update(lost_packets=end["sum_received"]["packets"], lost_percent=100.0)


IPERF_UDP: dict[str, Edit] = {
    **IPERF_TCP,
    "negative loss": _iperf(lambda end: end["sum_received"].update(lost_percent=-0.004)),
    "fractional out-of-order": _iperf(lambda end: end["streams"][0]["udp"].update(out_of_order=2.5)),
    "negative out-of-order": _iperf(lambda end: end["streams"][0]["udp"].update(out_of_order=-3)),
    "all lost, bytes received": _iperf(_all_lost),
    "summary jitter not the streams'": _iperf(scale(("sum_received", "jitter_ms"), 3)),
    "summary out-of-order not the streams'": _iperf(lambda end: end["sum_received"].update(out_of_order=7)),
    "a stream's lost not the summary's": _iperf(lambda end: end["streams"][0]["udp"].update(lost_packets=0)),
}


ORACLES: dict[str, Oracle] = {
    "hil.measure.iperf3.parse_tcp": _iperf3_oracle,
    "hil.measure.iperf3.parse_udp": _iperf3_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.iperf3.parse_tcp": IPERF_TCP,
    "hil.measure.iperf3.parse_udp": IPERF_UDP,
}
