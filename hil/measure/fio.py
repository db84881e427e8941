"""Block-device bandwidth, IOPS and completion latency with fio, as CrystalDiskMark measures them (seed 002 §8).

One job's JSON figures: `throughput` (B/s), `iops` and `latency_p99` (completion latency, 99th percentile,
µs). The engine is `libaio` when the board's fio has it, else `psync`, which is synchronous: queue depth 1
whatever the case asks (seed 002 §8.1: "可以使用 psync 替代"). Which engine ran is stored with every sample.

    m = fio.run(role, "/dev/nvme0n1", FioJob("randread", "4K", iodepth=32), engine=fio.engine(role), ...)
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass
from typing import Any

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure.dd import block_bytes
from hil.measure.parsing import json_object, number_at, parser, run_timed
from hil.verdict.errors import MeasurementError, ParseError
from hil.verdict.measurement import Measurement, Quantity

PREFERRED_ENGINE = "libaio"
FALLBACK_ENGINE = "psync"
# fio's rw= for one direction; mixed workloads (rw, randrw) would need two figures per run.
DIRECTION = {"read": "read", "randread": "read", "write": "write", "randwrite": "write"}
P99 = "99.000000"  # the key fio gives the 99th percentile in clat_ns/percentile
# bw_bytes and iops are io_bytes and total_ios over the runtime; rounding (ms runtime, integer bw) stays
# well inside this.
CONSISTENCY = 0.02
_ENGINE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*", re.ASCII)
# The options hil asks for and fio echoes back ("job options"): a figure of another job is no measurement.
ECHOED = ("filename", "rw", "bs", "iodepth", "ioengine", "runtime")
RUNTIME_SHORT = 0.95  # time_based: fio's measured runtime is the asked one (+ a few ms); less is a cut run
# Percentiles are histogram bins (fio's bins are within 1/64 of a value); min and max are exact.
PERCENTILE_BIN = 1 / 32


@dataclass(frozen=True)
class FioJob:
    """One CrystalDiskMark case: SEQ1M Q32T1 read is FioJob("read", "1M", iodepth=32)."""

    rw: str
    bs: str
    iodepth: int = 1
    numjobs: int = 1

    def __post_init__(self) -> None:
        if self.rw not in DIRECTION:
            raise ValueError(f"fio rw={self.rw!r}: hil measures one direction per run ({', '.join(DIRECTION)})")
        if self.iodepth < 1 or self.numjobs < 1:
            raise ValueError("fio iodepth and numjobs are at least 1")

    @property
    def direction(self) -> str:
        return DIRECTION[self.rw]


def command(filename: str, job: FioJob, *, engine: str, size_mb: int, runtime_s: float, ramp_s: float = 1) -> str:
    """The fio command line for one run of `job` on `filename` (a block device or a file): runtime_s whatever
    the device's speed (time_based, over its first size_mb), the ramp left out of the figures. psync gets
    iodepth=1: it cannot queue, and fio would print a note saying so."""
    iodepth = job.iodepth if engine != FALLBACK_ENGINE else 1
    return shell.cmd(
        "fio",
        f"--name={job.rw}_{job.bs.lower()}_q{job.iodepth}_t{job.numjobs}",
        f"--filename={filename}",
        f"--rw={job.rw}",
        f"--bs={job.bs}",
        f"--iodepth={iodepth}",
        f"--ioengine={engine}",
        f"--numjobs={job.numjobs}",
        "--direct=1",
        "--thread",
        "--group_reporting",
        f"--size={size_mb}M",
        "--time_based",
        f"--runtime={runtime_s:g}",
        f"--ramp_time={ramp_s:g}",
        "--output-format=json",
    )


def asked(command_line: str) -> dict[str, dict[str, str]]:
    """The options of a fio command line that fio must echo back, as `parse`'s keyword."""
    options = dict(arg[2:].split("=", 1) for arg in shlex.split(command_line) if arg.startswith("--") and "=" in arg)
    return {"expected": {key: options[key] for key in ECHOED if key in options}}


@parser("fio", asked=asked)
def parse(output: str, *, expected: dict[str, str] | None = None) -> Measurement:
    """fio's JSON for one job (group_reporting) into throughput, IOPS and p99 completion latency. An error
    job, one that moved no data, another job than `expected` (fio's echo of the options asked), a run shorter
    than asked or figures that contradict each other: ParseError."""
    document = json_object(output, "fio")
    jobs = document.get("jobs")
    if not isinstance(jobs, list) or len(jobs) != 1 or not isinstance(jobs[0], dict):
        count = len(jobs) if isinstance(jobs, list) else 0
        raise ParseError(f"fio: expected one job (group_reporting), found {count}", raw_output=output)
    job = jobs[0]
    error = number_at(job, "error", "fio", output)
    if error != 0:
        raise ParseError(f"fio job {job.get('jobname')!r} failed with error {error:g}", raw_output=output)
    rw = _option(document, job, "rw")
    if rw is None:
        raise ParseError("fio: the output does not say which rw ran", raw_output=output)
    if rw not in DIRECTION:
        raise ParseError(f"fio: rw={rw!r} is not a single-direction workload", raw_output=output)
    direction = DIRECTION[rw]
    figures = {
        key: number_at(job, f"{direction}/{key}", "fio", output)
        for key in ("io_bytes", "bw_bytes", "iops", "runtime", "total_ios")
    }
    if figures["io_bytes"] <= 0 or figures["total_ios"] <= 0 or figures["runtime"] <= 0:
        raise ParseError(f"fio moved no data ({direction}: io_bytes {figures['io_bytes']:g})", raw_output=output)
    p99_ns = number_at(job, f"{direction}/clat_ns/percentile/{P99}", "fio", output)
    _check_consistent(figures, output)
    _check_job(document, job, expected or {}, figures, output)
    _check_latency(job, direction, p99_ns, output)
    details: dict[str, Any] = {
        "rw": rw,
        **{key: _option(document, job, key) for key in ("bs", "iodepth", "ioengine")},
        "io_bytes": int(figures["io_bytes"]),
        "runtime_ms": int(figures["runtime"]),
        "fio": document.get("fio version"),
    }
    return Measurement(
        {
            "throughput": Quantity(figures["bw_bytes"], "B/s"),
            "iops": Quantity(figures["iops"], "IOPS"),
            "latency_p99": Quantity(p99_ns / 1000, "µs"),
        },
        raw=output,
        details={k: v for k, v in details.items() if v is not None},
    )


def _option(document: dict[str, Any], job: dict[str, Any], name: str) -> str | None:
    """A job option as fio echoes it: the job's own, else the global one (None: not echoed)."""
    for options in (job.get("job options"), document.get("global options")):
        if isinstance(options, dict) and isinstance(options.get(name), str):
            return options[name]
    return None


def _check_job(
    document: dict[str, Any], job: dict[str, Any], expected: dict[str, str], figures: dict[str, float], raw: str
) -> None:
    ran = {key: _option(document, job, key) for key in expected}
    differ = [f"{key}={ran[key]} (asked {value})" for key, value in expected.items() if ran[key] != value]
    if differ:
        raise ParseError(f"fio ran another job than the one asked: {', '.join(differ)}", raw_output=raw)
    if "runtime" in expected:
        asked_ms = float(expected["runtime"]) * 1000
        if figures["runtime"] < asked_ms * RUNTIME_SHORT:
            raise ParseError(
                f"fio measured {figures['runtime']:g} ms of the {asked_ms:g} ms asked (a run cut short)", raw_output=raw
            )
    try:
        bs = block_bytes(expected["bs"]) if "bs" in expected else None
    except ValueError:
        bs = None  # a size fio reads its own way (4KiB, ranges): no per-I/O check
    if bs is not None:
        # With ramp_time, io_bytes also counts the I/Os that were in flight when the ramp ended and total_ios
        # does not (seen: 1380 MiB for 1348 I/Os of 1M at iodepth 32): at most iodepth I/Os apart.
        depth = int(expected["iodepth"]) if expected.get("iodepth", "").isdigit() else 1
        slack = max(CONSISTENCY * figures["io_bytes"], depth * bs)
        if abs(figures["io_bytes"] - figures["total_ios"] * bs) > slack:
            per_io = figures["io_bytes"] / figures["total_ios"]
            raise ParseError(
                f"fio: io_bytes / total_ios = {per_io:g} bytes per I/O, but bs={expected['bs']}", raw_output=raw
            )


def _check_latency(job: dict[str, Any], direction: str, p99_ns: float, raw: str) -> None:
    low = number_at(job, f"{direction}/clat_ns/min", "fio", raw)
    high = number_at(job, f"{direction}/clat_ns/max", "fio", raw)
    if not 0 < low <= high or not low * (1 - PERCENTILE_BIN) <= p99_ns <= high * (1 + PERCENTILE_BIN):
        raise ParseError(
            f"fio: p99 completion latency {p99_ns:g} ns is outside its own min {low:g} .. max {high:g} ns",
            raw_output=raw,
        )


def _check_consistent(figures: dict[str, float], raw: str) -> None:
    seconds = figures["runtime"] / 1000
    for rate, total in (("bw_bytes", "io_bytes"), ("iops", "total_ios")):
        expected = figures[total] / seconds
        if not math.isclose(figures[rate], expected, rel_tol=CONSISTENCY, abs_tol=1):
            raise ParseError(
                f"fio: {rate} {figures[rate]:g} disagrees with {total} / runtime = {expected:g}", raw_output=raw
            )


@parser("fio")
def parse_engines(output: str) -> frozenset[str]:
    """The I/O engines `fio --enghelp` lists (a line a carriage return cut into is no engine's name)."""
    lines = output.replace("\r\n", "\n").split("\n")
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Available IO engines:")
    except StopIteration:
        raise ParseError("fio --enghelp printed no engine list", raw_output=output) from None
    engines = frozenset(line.strip(" \t") for line in lines[start + 1 :] if line.startswith("\t") and line.strip())
    if not engines or not all(_ENGINE_NAME.fullmatch(name) for name in engines):
        raise ParseError("fio --enghelp printed an engine list hil does not understand", raw_output=output)
    return engines


def engine(role: Role) -> str:
    """libaio when the role's fio has it, else psync (seed 002 §8.1)."""
    exitcode, output = role.run_status("fio --enghelp 2>&1", timeout=30)
    if exitcode != 0:
        raise MeasurementError(f"fio --enghelp exited {exitcode}: is fio installed on {role.label}?", output)
    return PREFERRED_ENGINE if PREFERRED_ENGINE in parse_engines(output) else FALLBACK_ENGINE


def run(
    role: Role, filename: str, job: FioJob, *, engine: str, size_mb: int, runtime_s: float, ramp_s: float = 1
) -> Measurement:
    """One fio run; its exit status, its job's error and an empty transfer are MeasurementErrors."""
    line = command(filename, job, engine=engine, size_mb=size_mb, runtime_s=runtime_s, ramp_s=ramp_s)
    # fio stops on its own at runtime + ramp; the rest is start-up (file layout, a slow board's console).
    output = run_timed(role, line + " 2>&1", "fio", timeout=runtime_s + ramp_s + 120, error=MeasurementError)[0]
    measurement = parse(output, expected=asked(line)["expected"])
    measurement.details["engine"] = engine
    return measurement


def describe_engine(engine: str, job: FioJob) -> str:
    """Which engine ran, for the facts: psync says that it could not queue."""
    if engine == FALLBACK_ENGINE:
        return f"{engine} (libaio absent: queue depth 1 instead of {job.iodepth})"
    return f"{engine} (queue depth {job.iodepth})"


def version(role: Role) -> str:
    output = role.run("fio --version 2>&1", check=False).strip()
    return output.splitlines()[0] if output else "fio (version unknown)"
