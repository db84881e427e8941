"""Numbers that cannot lie: parsers fed outputs made invalid by construction, which must never give a number.

tests/measure/test_parser_fuzz.py checks that a value a parser returns agrees with the text; this module
asks the other question: could it be a measurement of what was asked? Each INVALIDATIONS entry edits a
valid real capture (or, for the drivers nobody has captured, a line rendered from the driver's printf, as
their unit tests do) so that it contradicts what was asked, the tool's own other figures, or physics: a
rate that disagrees with bytes and time, another job than the one asked, a transfer the driver reported
as failed, a loss below 0, a resume that was only queued, two runs joined, a summary cut short. Each
example then gets up to two kernel console lines (which change nothing) at random places.

Per parser: MAX_EXAMPLES inputs, counted; the number of values returned from them must be 0.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_parser_fuzz import _COMMON, KERNEL_MESSAGES, _seeds

from hil.measure import fio
from hil.measure.parsing import PARSERS
from hil.verdict.errors import MeasurementError

DATA = Path(__file__).resolve().parents[1] / "data"
MAX_EXAMPLES = 10_000
PROFILE = settings(max_examples=MAX_EXAMPLES, **_COMMON)

Edit = Callable[[str, dict[str, Any]], tuple[str, dict[str, Any]]]


@dataclass(frozen=True)
class Base:
    name: str
    text: str
    asked: dict[str, Any]


# -- valid bases --------------------------------------------------------------------------------------


def _real_bases(parser_name: str) -> list[Base]:
    """The parser's real captures that parse to a value as captured."""
    registered = PARSERS[parser_name]
    bases = []
    for seed in _seeds(registered):
        try:
            registered.func(seed.text, **seed.asked)
        except MeasurementError:
            continue
        bases.append(Base(seed.name, seed.text, seed.asked))
    return bases


def _dw_line(size: int, loops: int, us: int, *, write: bool) -> str:
    """pcie-dw-dmatest's printf (tests/data/pcie_dmatest/dw-dmatest-format.txt), with its u32 arithmetic."""
    wr, rd = (1, 0) if write else (0, 1)
    total = ((wr + rd) * size * loops) % (1 << 32)
    speed = total * (1000000 // 1024) // us
    flags = f"{'wr' if wr else ''}/{'rd' if rd else ''}"
    return f"pcie dma {flags} test ({wr}+{rd})*{size}*{loops} cost {us}us speed:{speed}KB/S"


def _dw_bases() -> list[Base]:
    lines = [_dw_line(4194304, 1000, 1367960, write=True), _dw_line(64, 100000, 1066667, write=False)]
    return [Base(f"printf-{i}", f"[  812.34567{i}] {line}\n", {}) for i, line in enumerate(lines)]


def _irq_bases() -> list[Base]:
    """seed 002's `elbi count=%d %lluus` lines (tests/data/pcie_irq/seed-format.txt), timed and counted."""
    timed = "[  100.000123] elbi count=166666 6us\n[  101.000456] elbi count=333000 6us\n"
    return [
        Base("printf-timed", timed, {"kind": "elbi"}),
        Base("printf-one", "msi count=500000 2us\n", {"kind": "msi"}),
    ]


BASES: dict[str, Callable[[], list[Base]]] = {
    "hil.measure.pcie_dmatest.parse_dw_dmatest": _dw_bases,
    "hil.measure.pcie_irq.parse": _irq_bases,
}


# -- invalidations ------------------------------------------------------------------------------------


def _json_edit(change: Callable[[dict[str, Any]], None]) -> Edit:
    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        start = text.index("{")
        document = json.loads(text[start:])
        change(document)
        if document == json.loads(text[start:]):
            return text, asked  # nothing to edit in this base: not an invalid input
        return text[:start] + json.dumps(document, indent=2), asked

    return edit


def _fio_side(document: dict[str, Any]) -> dict[str, Any]:
    job = document["jobs"][0]
    return job[fio.DIRECTION[job["job options"]["rw"]]]


def _fio_option(name: str, value: Callable[[str], str]) -> Edit:
    def change(document: dict[str, Any]) -> None:
        options = document["jobs"][0]["job options"]
        options[name] = value(options[name])

    return _json_edit(change)


def _scale(path: tuple[str, ...], factor: float, *, integer: bool = False) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        node = document
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = (round if integer else float)(node[path[-1]] * factor)

    return change


def _fio_scale(key: str, factor: float) -> Edit:
    return _json_edit(lambda d: _scale((key,), factor, integer=True)(_fio_side(d)))


def _fio_p99(value: Callable[[dict[str, Any]], float]) -> Edit:
    def change(document: dict[str, Any]) -> None:
        clat = _fio_side(document)["clat_ns"]
        clat["percentile"][fio.P99] = value(clat)

    return _json_edit(change)


def _two_runs(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return text.rstrip("\n") + "\n" + text, asked


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
    "job error": _json_edit(lambda d: d["jobs"][0].update(error=5)),
    "two runs": _two_runs,
}


def _iperf(change: Callable[[dict[str, Any]], None]) -> Edit:
    return _json_edit(lambda d: change(d["end"]))


def _received_more_than_sent(end: dict[str, Any]) -> None:
    factor = 2 * max(end["sum_sent"]["bytes"], 1) / end["sum_received"]["bytes"]
    _scale(("sum_received", "bytes"), factor, integer=True)(end)
    _scale(("sum_received", "bits_per_second"), factor)(end)


IPERF_TCP: dict[str, Edit] = {
    "rate x2": _iperf(_scale(("sum_received", "bits_per_second"), 2)),
    "seconds x2": _iperf(_scale(("sum_received", "seconds"), 2)),
    "received more than sent": _iperf(_received_more_than_sent),
    "two runs": _two_runs,
}


def _all_lost(end: dict[str, Any]) -> None:
    end["sum_received"].update(lost_packets=end["sum_received"]["packets"], lost_percent=100.0)


IPERF_UDP: dict[str, Edit] = {
    **IPERF_TCP,
    "negative loss": _iperf(lambda end: end["sum_received"].update(lost_percent=-0.004)),
    "fractional out-of-order": _iperf(lambda end: end["streams"][0]["udp"].update(out_of_order=2.5)),
    "negative out-of-order": _iperf(lambda end: end["streams"][0]["udp"].update(out_of_order=-3)),
    "all lost, bytes received": _iperf(_all_lost),
}


def _on_last_line(pattern: str, replace: Callable[[re.Match[str]], str], *, line_from_end: int = 1) -> Edit:
    """Replace `pattern` in the last but (line_from_end - 1) non-empty line."""

    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        lines = text.split("\n")
        index = [i for i, line in enumerate(lines) if line.strip()][-line_from_end]
        lines[index] = re.sub(pattern, replace, lines[index], count=1)
        return "\n".join(lines), asked

    return edit


def _first_digit_flipped(match: re.Match[str]) -> str:
    seconds = match.group(1)
    first = next(i for i, c in enumerate(seconds) if c in "123456789")
    return f" {seconds[:first]}{int(seconds[first]) % 9 + 1}{seconds[first + 1 :]} s, "


def _insert_before_last(line: str) -> Edit:
    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        lines = text.rstrip("\n").split("\n")
        return "\n".join([*lines[:-1], line, lines[-1]]) + "\n", asked

    return edit


def _cut_last_line(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return text.rstrip("\n")[:-3], asked


def _dd(line_from_end: int) -> dict[str, Edit]:
    seconds = r" ([0-9][0-9.e+-]*) s, "
    return {
        "seconds digit flipped": _on_last_line(seconds, _first_digit_flipped, line_from_end=line_from_end),
        "bytes other than asked": _on_last_line(
            r"^([0-9]+) byte", lambda m: f"{int(m.group(1)) + 512} byte", line_from_end=line_from_end
        ),
        "error line": lambda text, asked: ("dd: error writing '/dev/sda': Input/output error\n" + text, asked),
    }


DDFILE = {
    **_dd(2),
    "sync ends before it starts": _on_last_line(r"sync-ns ([0-9]+) ([0-9]+)", lambda m: f"sync-ns {m[2]} {m[1]}"),
}

EPF = {
    "rate other than size / time": _on_last_line(r"Rate: ([0-9]+)", lambda m: f"Rate: {int(m[1]) * 2 + 1}"),
    "garbled operation": _on_last_line(r" (READ|WRITE) =>", lambda m: f" x{m[1]} =>"),
}

DW = {
    **{f"failure: {what}": _insert_before_last(f"[  811.000001] rk-pcie 3c0800000.pcie: {what}") for what in (
        "rk_pcie_get_dma_status, write abort", "rk_pcie_get_dma_status, read abort 10000",
        "rk_pcie_dma_tobus timed out", "rk_pcie_dma_frombus interrupted",
    )},
    "speed other than bytes / time": _on_last_line(r"speed:([0-9]+)", lambda m: f"speed:{int(m[1]) + 1}"),
}  # fmt: skip

IRQ = {
    "last line garbled": _on_last_line(r"count=([0-9])", lambda m: "count=O"),
    "cut last line": _cut_last_line,
    "figure needs more interrupts than counted": _on_last_line(r"count=([0-9]+)", lambda m: "count=3"),
}

RESUME = {
    "asynchronous": lambda text, asked: (
        re.sub(rf"(rpm_resume: {re.escape(asked['device'])} flags-)0 ", r"\g<1>1 ", text, count=1),
        asked,
    ),
    "failed": lambda text, asked: (
        re.sub(rf"(:{re.escape(asked['device'])} ret=)0$", r"\g<1>-5", text, flags=re.M),
        asked,
    ),
}


def _field(name: str, value: Callable[[int], object], *, line_from_end: int = 1) -> Edit:
    """`name=N` on the last line (or one before it) set to value(N)."""
    return _on_last_line(rf"\b{name}=([0-9]+)", lambda m: f"{name}={value(int(m[1]))}", line_from_end=line_from_end)


def _rate_doubled(name: str) -> Edit:
    return _on_last_line(rf"\b{name}=([0-9.]+)", lambda m: f"{name}={float(m[1]) * 2:.3f}")


V4L2 = {
    "fps x2": _rate_doubled("fps"),
    "span other than the fps": _field("span_us", lambda n: n * 2),
    "other size than asked": _field("width", lambda n: n // 2),
    "dropped contradicts the sequence numbers": _field("dropped", lambda n: n + 1),
    "bytes not whole frames": _field("bytes", lambda n: n + 2),
    "more corrupt frames than frames": _on_last_line(r"corrupt=0 ", lambda m: "corrupt=100000 "),
}
HID = {
    "rate x2": _rate_doubled("kB_s"),
    "time other than the rate": _field("timed_ns", lambda n: n * 2),
    "other report size than asked": _field("report_bytes", lambda n: n // 2),
    "reports lost": _field("lost", lambda n: n + 3),
    "reports corrupt": _field("corrupt", lambda n: n + 1),
}
MTP = {
    "fewer bytes on the host": _field("bytes", lambda n: n - 1),
    "tool failed": _field("exit", lambda n: 1),
    "progress stopped short": _on_last_line(
        r"Progress: ([0-9]+) of", lambda m: f"Progress: {int(m[1]) // 2} of", line_from_end=2
    ),
    "error line": _insert_before_last("Error sending file: PTP_RC_GeneralError"),
}
CP = {
    "other size than the source": _field("bytes", lambda n: n + 1),
    "clock went back": _on_last_line(r"copied=([0-9]+) synced=([0-9]+)", lambda m: f"copied={m[2]} synced={m[1]}"),
    "cp printed an error": lambda text, asked: ("cp: error writing 'x': No space left on device\n" + text, asked),
}
BAR = {
    "store rate x2": _rate_doubled("store_mb_s"),
    "load rate x2": _rate_doubled("load_mb_s"),
    "bytes other than the rates": _field("bytes", lambda n: n * 2),
}


def _iperf2_field(index: int, value: Callable[[str], str]) -> Edit:
    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        lines = text.rstrip("\n").split("\n")
        last = max(i for i, line in enumerate(lines) if "," in line)  # the last report (warnings follow it)
        fields = lines[last].split(",")
        fields[index] = value(fields[index])
        lines[last] = ",".join(fields)
        return "\n".join(lines) + "\n", asked

    return edit


IPERF2 = {
    "rate x2": _iperf2_field(8, lambda v: str(int(v) * 2)),
    "bytes other than the datagrams": _iperf2_field(7, lambda v: str(int(v) - 1000)),
    "more copies than the modem makes": _iperf2_field(13, lambda v: str(int(v) * 2)),
    "loss other than lost / total": _iperf2_field(12, lambda v: f"{float(v) + 5:.3f}"),
    "a client's own line": _iperf2_field(11, lambda v: "-1"),
    "a stream missing": lambda text, asked: (text, {**asked, "streams": asked["streams"] + 1}),
    "two runs joined": _two_runs,
    "a run shorter than asked": lambda text, asked: (text, {**asked, "duration_s": asked["duration_s"] * 2}),
    "no server": lambda text, asked: (text + "read failed: Connection refused\n", asked),
}

INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.iperf2.parse_udp_server": IPERF2,
    "hil.measure.v4l2_fps.parse": V4L2,
    "hil.measure.hid.parse": HID,
    "hil.measure.mtp.parse": MTP,
    "hil.measure.cpfile.parse": CP,
    "hil.measure.pcie_bar.parse": BAR,
    "hil.measure.fio.parse": FIO,
    "hil.measure.iperf3.parse_tcp": IPERF_TCP,
    "hil.measure.iperf3.parse_udp": IPERF_UDP,
    "hil.measure.dd.parse": {**_dd(1), "summary cut short": _cut_last_line},
    "hil.measure.ddfile.parse_synced": DDFILE,
    "hil.measure.pcie_dmatest.parse_epf_test": EPF,
    "hil.measure.pcie_dmatest.parse_dw_dmatest": DW,
    "hil.measure.pcie_irq.parse": IRQ,
    "hil.measure.usb_resume.parse": RESUME,
}
# Registered parsers without structured invalidations yet, and why: their oracles of consistency in
# test_parser_fuzz.py still hold them to the text.
NOT_YET = {
    "hil.measure.fio.parse_engines": "a list of names, not a figure",
    "hil.measure.cpuload.parse_stat": "counters without a figure of their own to contradict",
    "hil.measure.netdev.parse_statistics": "one counter per line: a cut digit is another valid counter",
    "hil.measure.pcie_dmatest.parse_pcitest": "OKAY / NOT OKAY verdicts, no figure",
}


def test_every_parser_is_invalidated_or_says_why_not():
    assert set(INVALIDATIONS) | set(NOT_YET) == set(PARSERS)
    assert not set(INVALIDATIONS) & set(NOT_YET)


def _cases(parser_name: str) -> list[tuple[Base, str, str, dict[str, Any]]]:
    """Each valid base with each invalidation that changes it (an edit with nothing to edit is skipped)."""
    bases = BASES.get(parser_name, lambda: _real_bases(parser_name))()
    assert bases, f"{parser_name}: no valid base to invalidate"
    cases = []
    for base in bases:
        for name, edit in INVALIDATIONS[parser_name].items():
            text, asked = edit(base.text, dict(base.asked))
            if text != base.text or asked != base.asked:
                cases.append((base, name, text, asked))
    return cases


def _with_kernel_lines(text: str, rng: random.Random, count: int) -> str:
    for _ in range(count):
        starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        at = rng.choice(starts)
        line = f"[{rng.randrange(100000):5d}.{rng.randrange(1000000):06d}] {rng.choice(KERNEL_MESSAGES)}\n"
        text = text[:at] + line + text[at:]
    return text


@pytest.mark.parametrize("parser_name", sorted(INVALIDATIONS))
def test_no_number_comes_from_an_invalid_output(parser_name, record_property):
    registered = PARSERS[parser_name]
    cases = _cases(parser_name)
    tried: list[int] = []
    numbers: list[str] = []

    @PROFILE
    @given(index=st.integers(0, len(cases) - 1), kernel_lines=st.integers(0, 2), state=st.integers(0, 2**32))
    def invalid(index: int, kernel_lines: int, state: int) -> None:
        base, name, text, asked = cases[index]
        text = _with_kernel_lines(text, random.Random(state), kernel_lines)
        tried.append(1)
        try:
            value = registered.func(text, **asked)
        except MeasurementError:
            return
        numbers.append(f"{base.name} / {name}: {value!r}")

    invalid()
    record_property("inputs", len(tried))
    record_property("numbers_from_invalid", len(numbers))
    assert len(tried) >= MAX_EXAMPLES
    assert {name for _, name, _, _ in cases} == set(INVALIDATIONS[parser_name]), "an invalidation applies nowhere"
    assert numbers == [], f"{len(numbers)} of {len(tried)} invalid outputs gave a number: {numbers[:5]}"
