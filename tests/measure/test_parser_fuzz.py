"""Every parser registered with hil.measure.parsing.parser, fed mutations of its real captures.

A parser is fuzzed here by being registered (`@parser("<tests/data folder>", asked=...)`) in any module
under hil/measure: the modules are imported below and the registry is read at collection. Each parser
gets MAX_EXAMPLES inputs, each a real capture (tests/data/<folder>/NAME.txt, asked what its NAME.source
command asked) with one to four mutations: truncation, digit swaps, Unicode digits, kernel console
lines, duplicated, dropped or swapped lines, huge or malformed numbers, random text and bytes. Checked:
- only MeasurementError leaves the parser, carrying the input verbatim;
- a returned value holds finite numbers only and passes the parser's ORACLES entry, which reads the
  figures from the text by other means than the parser (a parser without an oracle fails a test);
- kernel lines inserted between lines change nothing; a Unicode digit in place of an ASCII one never
  gives a different value.

Profiles: "parsers-full" (the default: MAX_EXAMPLES inputs per parser, what CI runs) and
"parsers-quick" (HIL_PARSER_FUZZ=quick, for editing a parser).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import os
import pkgutil
import random
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hil.measure
from hil.measure import cpfile, dd, ddfile, mtp, pcie_bar
from hil.measure.parsing import PARSERS, RegisteredParser, without_kernel_messages
from hil.verdict.errors import MeasurementError
from hil.verdict.measurement import Measurement

for module in pkgutil.walk_packages(hil.measure.__path__, "hil.measure."):
    importlib.import_module(module.name)

DATA = Path(__file__).resolve().parents[1] / "data"
MAX_EXAMPLES = 10_000
_COMMON = {
    "database": None,  # no example files in the tree; a failure prints its reproduction blob
    "derandomize": True,  # the same inputs on every run: CI is reproducible
    "print_blob": True,
    "deadline": timedelta(seconds=1),  # one parse takes about a millisecond: a second is a regex blowing up
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
settings.register_profile("parsers-full", max_examples=MAX_EXAMPLES, **_COMMON)
settings.register_profile("parsers-quick", max_examples=500, **_COMMON)
PROFILE = settings.get_profile(f"parsers-{os.environ.get('HIL_PARSER_FUZZ', 'full')}")


# -- oracles: what a returned value must agree with, read from the text without the parser's regexes --


def _dd_oracle(text: str, asked: dict[str, Any], result: dd.DdTransfer) -> None:
    lines = [line.strip() for line in without_kernel_messages(text.replace("\r", "\n")).split("\n") if line.strip()]
    summary = lines[-1]
    assert summary.isascii(), summary
    assert lines[-2].endswith(" records out") and lines[-3].endswith(" records in"), lines[-3:]
    count, _, rest = summary.partition(" ")
    seconds = rest.partition(" copied, ")[2].partition(" s, ")[0]
    assert (count, float(seconds)) == (str(result.bytes), result.seconds), summary
    printed, unit = rest.rpartition(", ")[2].removesuffix("B/s").split(" ")  # dd's own rate: "28.7 G"
    scale = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[unit]
    assert math.isclose(result.bytes / result.seconds, float(printed) * scale, rel_tol=0.06), summary
    if asked["expected_bytes"] is not None:
        assert result.bytes == asked["expected_bytes"]
    assert result.bytes > 0 and result.seconds > 0 and math.isfinite(result.mb_per_s)


def _dd_sync_oracle(text: str, asked: dict[str, Any], result: ddfile.SyncedWrite) -> None:
    lines = [line.strip() for line in without_kernel_messages(text.replace("\r", "\n")).split("\n") if line.strip()]
    label, start, end = lines[-1].split(" ")
    assert label == "sync-ns" and start.isascii() and end.isascii(), lines[-1]
    assert result.sync_seconds == (int(end) - int(start)) / 1e9 >= 0
    _dd_oracle("\n".join(lines[:-1]), asked, dd.DdTransfer(result.bytes, result.dd_seconds))


def _clean_lines(text: str) -> list[str]:
    return without_kernel_messages(text).splitlines()


def _procstat_oracle(text: str, asked: dict[str, Any], result: dict[str, tuple[int, ...]]) -> None:
    for name, counters in result.items():
        rows = []
        for line in _clean_lines(text):
            tokens = line.split()
            numeric = all(t.isascii() and t.isdigit() for t in tokens[1:])
            if tokens and tokens[0] == name and 4 <= len(tokens) - 1 <= 10 and numeric:
                rows.append([int(t) for t in tokens[1:]])
        assert len(rows) == 1, (name, rows)
        assert tuple((rows[0] + [0] * 8)[:8]) == counters


def _json_document(text: str) -> dict[str, Any]:
    """The JSON object a tool printed, found by scanning from each line that starts with '{'."""
    clean = without_kernel_messages(text)
    start = next(i for i, line in enumerate(clean.splitlines(keepends=True)) if line.startswith("{"))
    return json.loads("".join(clean.splitlines(keepends=True)[start:]))


def _iperf3_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    values, details = result
    received = _json_document(text)["end"]["sum_received"]
    assert values["throughput"].value == received["bits_per_second"]
    assert details["bytes_received"] == received["bytes"]
    assert math.isclose(float(received["bytes"]) * 8 / received["seconds"], received["bits_per_second"], rel_tol=0.02)
    if "jitter" in values:
        assert values["jitter"].value == received["jitter_ms"]
        assert values["loss"].value == received["lost_percent"]


def _fio_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    values, _ = result
    document = _json_document(text)
    (job,) = document["jobs"]
    rw = (job.get("job options") or {}).get("rw") or document["global options"]["rw"]
    side = job[{"read": "read", "randread": "read", "write": "write", "randwrite": "write"}[rw]]
    assert values["throughput"].value == side["bw_bytes"] and values["iops"].value == side["iops"]
    assert math.isclose(values["latency_p99"].value * 1000, side["clat_ns"]["percentile"]["99.000000"])
    assert math.isclose(side["bw_bytes"], float(side["io_bytes"]) / (side["runtime"] / 1000), rel_tol=0.05, abs_tol=1)


def _fio_engines_oracle(text: str, asked: dict[str, Any], result: frozenset[str]) -> None:
    listed = {line.strip() for line in text.splitlines()}
    assert result and result <= listed, result - listed


def _bar_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    fields = list(pcie_bar._LINE.finditer(text))[-1].groupdict()  # the line it took; the figures are checked
    assert (int(fields["bytes"]), int(fields["width"]), int(fields["loops"])) == (
        result.bytes,
        result.width,
        result.loops,
    )
    moved = result.bytes * result.loops * 1000
    assert math.isclose(result.store_mb_s, moved / int(fields["store_ns"]))
    assert math.isclose(result.load_mb_s, moved / int(fields["load_ns"]))
    assert abs(float(fields["store"]) - result.store_mb_s) < 0.001


def _v4l2_fps_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    line = [line for line in text.split("\n") if line.startswith("v4l2_fps ")][-1]
    fields = dict(part.split("=", 1) for part in line.split(" ")[1:])
    assert (fields["format"], int(fields["width"]), int(fields["height"]), int(fields["frames"])) == (
        asked["fmt"],
        asked["width"],
        asked["height"],
        asked["frames"],
    )
    assert (result.dropped, result.corrupt, result.bytes) == tuple(
        int(fields[key]) for key in ("dropped", "corrupt", "bytes")
    )
    assert math.isclose(result.fps, (result.frames - 1) * 1e6 / int(fields["span_us"]))
    assert abs(float(fields["fps"]) - result.fps) < 0.001


def _epf_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    line = [line for line in text.split("\n") if " => Size: " in line and line.endswith(" KB/s")][-1]
    op = line.split(" => ")[0].split()[-1]
    size = int(line.split("Size: ")[1].split(" B,")[0])
    seconds = float(line.split("Time: ")[1].split(" s,")[0])
    assert (result.direction, result.bytes) == ({"READ": "read", "WRITE": "write"}[op], size)
    assert math.isclose(result.seconds, seconds)


def _pcitest_oracle(text: str, asked: dict[str, Any], result: dict[tuple[str, int], bool]) -> None:
    verdicts: dict[tuple[str, int], bool] = {}
    for line in text.split("\n"):
        head, sep, verdict = line.rstrip("\r").partition("):")
        if sep and " (" in head and head.split(" (")[0] in ("READ", "WRITE", "COPY"):
            size = head.split(" (")[1].strip().removesuffix(" bytes")
            if size.isascii() and size.isdigit() and verdict.strip() in ("OKAY", "NOT OKAY"):
                verdicts[(head.split(" (")[0], int(size))] = verdict.strip() == "OKAY"
    assert verdicts == result


def _dw_dmatest_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    line = [line for line in text.split("\n") if "pcie dma " in line and " speed:" in line][-1]
    product = line.split("test (")[1].split(" cost")[0]  # "1+0)*SIZE*LOOPS"
    size, loops = (int(n) for n in product.split(")*")[1].split("*"))
    us = int(line.split(" cost ")[1].split("us")[0])
    assert (result.bytes, result.seconds) == (size * loops, us / 1e6)


def _irq_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    kind = asked.get("kind", "elbi")
    line = [line for line in text.split("\n") if f"{kind} count=" in line][-1]
    printed = int(line.rsplit(" ", 1)[1].removesuffix("us"))
    assert printed / 1.3 - 1 <= result.us_per_interrupt <= printed * 1.3 + 1, (printed, result)


def _resume_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    device = asked["device"]
    lines = [line.strip() for line in without_kernel_messages(text).replace("\r", "\n").split("\n")]
    lines = [line for line in lines if line.isascii() and line.isprintable()]  # the kernel prints no other

    def microseconds(line: str) -> bool:  # ftrace prints seconds with exactly six decimals
        words = line.split(": rpm_")[0].split()
        seconds, dot, fraction = (words[-1] if words else "").partition(".")
        return bool(dot) and seconds.isdigit() and fraction.isdigit() and len(fraction) == 6

    lines = [line for line in lines if ": rpm_" in line and microseconds(line)]
    start = next(line for line in lines if f": rpm_resume: {device} flags-" in line)
    end = next(
        line for line in lines[lines.index(start) :] if line.endswith(f":{device} ret=0") and "rpm_resume+" in line
    )
    started = float(start.split(": rpm_resume: ")[0].split()[-1])
    returned = float(end.split(": rpm_return_int: ")[0].split()[-1])
    assert (result.device, result.started_s, result.returned_s) == (device, started, returned)
    assert 0 <= result.ms == (returned - started) * 1000


def _hid_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    lines = without_kernel_messages(text.replace("\r\n", "\n").replace("\r", "\n")).split("\n")
    line = [line.rstrip() for line in lines if line.startswith("hid_throughput mode=")][-1]
    fields = dict(part.split("=", 1) for part in line.split()[1:])
    numbers = {key: int(fields[key]) for key in ("report_bytes", "reports", "first", "timed_reports", "timed_ns")}
    assert (fields["mode"], numbers) == (
        result.mode,
        {key: getattr(result, key) for key in numbers},
    )
    assert int(fields["corrupt"]) == 0 and int(fields["lost"]) == result.lost
    assert result.reports + result.lost == asked["count"] > result.first + result.timed_reports
    assert abs(float(fields["kB_s"]) - result.kb_per_s) < 0.001


def _mtp_oracle(text: str, asked: dict[str, Any], result: mtp.MtpTransfer) -> None:
    last = [line for line in without_kernel_messages(text.replace("\r", "\n")).split("\n") if line.strip()][-1]
    fields = dict(part.split("=", 1) for part in last.strip().split(" ")[1:])
    assert fields["exit"] == "0" and int(fields["bytes"]) == result.bytes == asked["expected_bytes"], last
    assert result.seconds == float(fields["end"]) - float(fields["start"]) >= mtp.MIN_SECONDS, last
    assert result.direction == asked["direction"] and math.isfinite(result.mb_per_s)


def _cp_oracle(text: str, asked: dict[str, Any], result: cpfile.FileCopy) -> None:
    lines = [line.strip() for line in without_kernel_messages(text.replace("\r", "\n")).split("\n") if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("hil-cp: "), lines
    fields = dict(part.split("=", 1) for part in lines[0].split(" ")[1:])
    start, copied, synced = (int(fields[key]) for key in ("start", "copied", "synced"))
    assert int(fields["bytes"]) == result.bytes == asked["expected_bytes"], lines[0]
    assert (result.cp_seconds, result.sync_seconds) == ((copied - start) / 1e9, (synced - copied) / 1e9)
    assert result.cp_seconds + result.sync_seconds >= cpfile.MIN_SECONDS and math.isfinite(result.mb_per_s)


def _netdev_oracle(text: str, asked: dict[str, Any], result: dict[str, int]) -> None:
    lines = [line.strip() for line in without_kernel_messages(text.replace("\r", "\n")).split("\n") if line.strip()]
    assert len(lines) == len(asked["names"]) == len(result), (lines, result)
    for name in asked["names"]:
        (value,) = [line.split(f"/statistics/{name}:")[1] for line in lines if f"/statistics/{name}:" in line]
        assert value.isascii() and value.isdigit() and int(value) == result[name], (name, value)


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


ORACLES: dict[str, Callable[[str, dict[str, Any], Any], None]] = {
    "hil.measure.iperf2.parse_udp_server": _iperf2_oracle,
    "hil.measure.dd.parse": _dd_oracle,
    "hil.measure.ddfile.parse_synced": _dd_sync_oracle,
    "hil.measure.cpuload.parse_stat": _procstat_oracle,
    "hil.measure.iperf3.parse_tcp": _iperf3_oracle,
    "hil.measure.iperf3.parse_udp": _iperf3_oracle,
    "hil.measure.fio.parse": _fio_oracle,
    "hil.measure.fio.parse_engines": _fio_engines_oracle,
    "hil.measure.pcie_bar.parse": _bar_oracle,
    "hil.measure.pcie_dmatest.parse_epf_test": _epf_oracle,
    "hil.measure.pcie_dmatest.parse_pcitest": _pcitest_oracle,
    "hil.measure.pcie_dmatest.parse_dw_dmatest": _dw_dmatest_oracle,
    "hil.measure.pcie_irq.parse": _irq_oracle,
    "hil.measure.v4l2_fps.parse": _v4l2_fps_oracle,
    "hil.measure.usb_resume.parse": _resume_oracle,
    "hil.measure.hid.parse": _hid_oracle,
    "hil.measure.mtp.parse": _mtp_oracle,
    "hil.measure.cpfile.parse": _cp_oracle,
    "hil.measure.netdev.parse_statistics": _netdev_oracle,
}
# Parsers whose tool output has never been captured anywhere (the seed gives the driver's printf only):
# fuzzed for robustness (only the parse error, whatever the input), but they cannot show a valid value.
NO_REAL_CAPTURE = {
    "hil.measure.pcie_irq.parse": "no ELBI/MSI kernel log has been captured (seed 002 §6-7 gives the printf only)",
    "hil.measure.pcie_dmatest.parse_dw_dmatest": "no pcie-dw-dmatest log has been captured (seed 002 gives the printf)",
}


# -- seeds and mutations --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Seed:
    name: str
    text: str
    asked: dict[str, Any]


def _seeds(registered: RegisteredParser) -> list[Seed]:
    seeds = []
    for path in sorted((DATA / str(registered.data)).glob("*.txt")):
        source = dict(line.split(": ", 1) for line in path.with_suffix(".source").read_text().splitlines())
        asked = registered.asked(source["command"]) if registered.asked else {}
        seeds.append(Seed(path.stem, path.read_bytes().decode(), asked))  # bytes: keep CR as captured
    return seeds


ASCII_DIGITS = "0123456789"
# Digits of other scripts that str.isdigit() and int() accept: Arabic-Indic, Devanagari, fullwidth, Bengali.
UNICODE_DIGITS = ["٠١٢٣٤٥٦٧٨٩", "०१२३४५६७८९", "０１２３４５６７８９", "০১২৩৪৫৬৭৮৯"]
KERNEL_MESSAGES = [
    "usb 1-1: new high-speed USB device number 2 using xhci_hcd",
    "sd 0:0:0:0: [sda] 262144 512-byte logical blocks: (134 MB/128 MiB)",
    "dwc2 ff580000.usb: new device is high-speed",
    "random: crng init done",
]


KINDS = [
    "truncate", "digit", "unicode-digit", "kernel-line", "kernel-mid-line", "duplicate-line", "drop-line",
    "swap-lines", "huge-number", "bad-number", "insert-text", "insert-bytes",
]  # fmt: skip
BAD_NUMBERS = ["1.2.3", ".", "..", "1e", "e5", "1e999", "nan", "inf", "-1", "0", "+", "0x10", "1_000", "²"]


def _kernel_line(rng: random.Random) -> str:
    level = rng.choice(["", "<6>", "<3>"])
    message = rng.choice(KERNEL_MESSAGES) if rng.random() < 0.7 else _noise(rng).replace("\n", " ").replace("\r", " ")
    return f"{level}[{rng.randrange(100000):5d}.{rng.randrange(1000000):06d}] {message}\n"


def _noise(rng: random.Random) -> str:
    """Random text: raw bytes decoded as a console might, or code points from anywhere in Unicode."""
    if rng.random() < 0.5:
        raw = rng.randbytes(rng.randrange(65))
        return raw.decode(rng.choice(["latin-1", "utf-8"]), errors="replace")
    return "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x110000)])) for _ in range(rng.randrange(65)))


def _mutate(kind: str, text: str, rng: random.Random) -> str:
    """`text` with one mutation of `kind` at random places (no-op when the text has no place for it)."""
    at = rng.randrange(len(text) + 1)
    digits = [i for i, c in enumerate(text) if c in ASCII_DIGITS]
    lines = text.splitlines(keepends=True)
    if kind == "truncate":
        return text[:at]
    if kind in ("digit", "unicode-digit", "huge-number", "bad-number") and digits:
        i = rng.choice(digits)
        if kind == "digit":
            new = rng.choice(ASCII_DIGITS.replace(text[i], ""))
        elif kind == "unicode-digit":  # of another value, so a parser that accepts it gives another number
            new = rng.choice(UNICODE_DIGITS)[(int(text[i]) + rng.randrange(1, 10)) % 10]
        elif kind == "huge-number":
            new = text[i] + "9" * rng.randrange(20, 400)
        else:
            new = rng.choice(BAD_NUMBERS)
        return text[:i] + new + text[i + 1 :]
    if kind == "kernel-line":  # at a line start: the console printed it between two lines of the tool
        at = rng.choice([0] + [i + 1 for i, c in enumerate(text) if c in "\r\n"])
        return text[:at] + _kernel_line(rng) + text[at:]
    if kind == "kernel-mid-line":
        return text[:at] + _kernel_line(rng) + text[at:]
    if kind in ("duplicate-line", "drop-line", "swap-lines") and lines:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        if kind == "duplicate-line":
            lines.insert(j, lines[i])
        elif kind == "drop-line":
            del lines[i]
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return "".join(lines)
    if kind in ("insert-text", "insert-bytes"):
        return text[:at] + _noise(rng) + text[at:]
    return text


def _inputs(seeds: list[Seed]) -> st.SearchStrategy[tuple[Seed, list[str], str]]:
    """A seed and one to four mutation kinds drawn by hypothesis (so a failure shrinks to few kinds);
    places and payloads from a seeded random generator (drawing each through hypothesis costs ~10x)."""

    def build(seed: Seed, kinds: list[str], state: int) -> tuple[Seed, list[str], str]:
        rng, text = random.Random(state), seed.text
        for kind in kinds:
            text = _mutate(kind, text, rng)
        return seed, kinds, text

    return st.builds(
        build, st.sampled_from(seeds), st.lists(st.sampled_from(KINDS), min_size=1, max_size=4), st.integers(0, 2**64)
    )


# -- the harness ----------------------------------------------------------------------------------


def _outcome(registered: RegisteredParser, text: str, asked: dict[str, Any]) -> tuple[str, Any]:
    """("value", result) or ("error", None); any other exception fails the test with its traceback.

    A Measurement is compared by its figures and details: its `raw` is the input, whatever it was."""
    try:
        value = registered.func(text, **asked)
        if isinstance(value, Measurement):  # figures and numeric details; strings are echoed options
            numbers = {k: v for k, v in value.details.items() if isinstance(v, int | float)}
            if value.bytes_received is not None:
                numbers["bytes_received"] = value.bytes_received
            return "value", (dict(value.values), numbers)
        return "value", value
    except MeasurementError as exc:
        assert exc.raw_output == text, "a parse error keeps the tool's output verbatim"
        return "error", None


def _numbers(value: Any) -> list[float]:
    """Every number inside a parser's result (dataclass fields, mappings, sequences)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers(item)]
    if isinstance(value, list | tuple):
        return [n for item in value for n in _numbers(item)]
    return []


def _registered() -> list[RegisteredParser]:
    return sorted(PARSERS.values(), key=lambda registered: registered.name)


def test_the_registry_holds_the_known_parsers():
    # The harness below is parametrised on the registry: an empty one would pass by testing nothing.
    assert "hil.measure.dd.parse" in PARSERS


@pytest.mark.parametrize("registered", _registered(), ids=lambda registered: registered.name)
def test_every_parser_has_real_captures_and_an_oracle(registered):
    if registered.name in NO_REAL_CAPTURE:
        pytest.skip(NO_REAL_CAPTURE[registered.name])
    seeds = _seeds(registered)
    assert len(seeds) >= 3, f"{registered.name}: tests/data/{registered.data} needs real captures"
    assert any(_outcome(registered, seed.text, seed.asked)[0] == "value" for seed in seeds), "a valid capture"
    assert any(_outcome(registered, seed.text, seed.asked)[0] == "error" for seed in seeds), "a failed run"
    assert registered.name in ORACLES, f"add an oracle for {registered.name} to ORACLES"


@pytest.mark.parametrize("registered", _registered(), ids=lambda registered: registered.name)
def test_mutated_real_output_gives_a_consistent_value_or_a_parse_error(registered):
    seeds = _seeds(registered)
    expected = {seed.name: _outcome(registered, seed.text, seed.asked) for seed in seeds}
    oracle = ORACLES.get(registered.name)
    tried: list[int] = []
    values: list[int] = []

    @PROFILE
    @given(case=_inputs(seeds))
    def fuzz(case: tuple[Seed, list[str], str]) -> None:
        seed, kinds, text = case
        tried.append(1)
        outcome = _outcome(registered, text, seed.asked)
        if set(kinds) == {"kernel-line"}:
            assert outcome == expected[seed.name], "kernel lines between the tool's lines change nothing"
        if set(kinds) == {"unicode-digit"}:
            assert outcome in (expected[seed.name], ("error", None)), "a Unicode digit never gives another value"
        if outcome[0] == "value":
            values.append(1)
            assert all(math.isfinite(n) for n in _numbers(outcome[1])), outcome[1]
            assert oracle is not None, f"no oracle for {registered.name}"
            oracle(text, seed.asked, outcome[1])

    fuzz()
    assert len(tried) >= PROFILE.max_examples
    if not values and registered.name in NO_REAL_CAPTURE:
        pytest.skip(f"robust to {len(tried)} inputs, but {NO_REAL_CAPTURE[registered.name]}")
    assert values, "no mutated input parsed at all: the mutations never leave a valid output"
