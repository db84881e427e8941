"""hil.measure.fio's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from hil.measure import fio

from .edits import (
    Edit,
    Oracle,
    json_document,
    json_edit,
    scale,
    two_runs,
)


def _fio_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    values, _ = result
    document = json_document(text)
    (job,) = document["jobs"]
    rw = (job.get("job options") or {}).get("rw") or document["global options"]["rw"]
    side = job[{"read": "read", "randread": "read", "write": "write", "randwrite": "write"}[rw]]
    assert values["throughput"].value == side["bw_bytes"] and values["iops"].value == side["iops"]
    assert math.isclose(values["latency_p99"].value * 1000, side["clat_ns"]["percentile"]["99.000000"])
    assert math.isclose(side["bw_bytes"], float(side["io_bytes"]) / (side["runtime"] / 1000), rel_tol=0.05, abs_tol=1)


def _fio_engines_oracle(text: str, asked: dict[str, Any], result: frozenset[str]) -> None:
    listed = {line.strip() for line in text.splitlines()}
    assert result and result <= listed, result - listed


def _fio_side(document: dict[str, Any]) -> dict[str, Any]:
    job = document["jobs"][0]
    return job[fio.DIRECTION[job["job options"]["rw"]]]


def _fio_option(name: str, value: Callable[[str], str]) -> Edit:
    def change(document: dict[str, Any]) -> None:
        options = document["jobs"][0]["job options"]
        options[name] = value(options[name])

    return json_edit(change)


def _fio_scale(key: str, factor: float) -> Edit:
    return json_edit(lambda d: scale((key,), factor, integer=True)(_fio_side(d)))


def _fio_p99(value: Callable[[dict[str, Any]], float]) -> Edit:
    def change(document: dict[str, Any]) -> None:
        clat = _fio_side(document)["clat_ns"]
        clat["percentile"][fio.P99] = value(clat)

    return json_edit(change)


OTHER_DIRECTION = {"read": "write", "write": "read", "randread": "randwrite", "randwrite": "randread"}


FIO: dict[str, Edit] = {
    "rate x2": _fio_scale("bw_bytes", 2),
    "iops x2": _fio_scale("iops", 2),
    "bytes x2": _fio_scale("io_bytes", 2),
    "runtime / 2": _fio_scale("runtime", 0.5),
    "p99 negative": _fio_p99(lambda clat: -clat["percentile"][fio.P99]),
    "p99 above max": _fio_p99(lambda clat: clat["max"] * 2),
    "other direction": _fio_option("rw", lambda rw: OTHER_DIRECTION[rw]),
    "other block size": _fio_option("bs", lambda bs: "4K" if bs != "4K" else "1M"),
    "other file": _fio_option("filename", lambda name: "/tmp/fio-on-tmpfs"),
    "job error": json_edit(lambda d: d["jobs"][0].update(error=5)),
    "two runs": two_runs,
}


def _engines(change: Any) -> Edit:
    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return change(text), asked

    return edit


ENGINES: dict[str, Edit] = {
    "header garbled": _engines(lambda text: text.replace("Available IO engines:", "Available IO engine:")),
    "no engine after the header": _engines(
        lambda text: text.split("Available IO engines:")[0] + "Available IO engines:\n"
    ),
    "an engine name garbled": _engines(lambda text: text.replace("\tpsync\n", "\tps ync\n")),
    "an engine overwritten after a CR": _engines(lambda text: text.replace("\tpsync\n", "\tps\rync\n")),
    "the list ends in a CR": _engines(lambda text: text.rstrip("\n") + "\r"),
}


ORACLES: dict[str, Oracle] = {
    "hil.measure.fio.parse": _fio_oracle,
    "hil.measure.fio.parse_engines": _fio_engines_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.fio.parse": FIO,
    "hil.measure.fio.parse_engines": ENGINES,
}
