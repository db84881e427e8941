"""iperf 2 UDP, read where seed 004 reads it: the server's reports (`iperf -s -u -y C`).

Seed 004 sends UDP at a chosen rate (`iperf -c ... -u -b 50M`, also `-P 10`) and reads the *server's*
rate, jitter, loss and out-of-order datagrams. iperf 2's client cannot be trusted for any of them: with
no server at all it exits 0 and prints a rate (what it sent, `-1` datagrams: tests/data/iperf2), and its
CSV line is its own view even when a server answered. So the figures come from the server's CSV lines,
one per stream, which have no SUM line: the streams are summed here.

A server line (iperf 2.1.8, CSV): timestamp, source address, source port, destination address, destination
port, transfer id, interval, bytes, bits per second, jitter (ms), lost, total datagrams, loss (%),
out-of-order datagrams. The timestamp is not read: 2.1.x prints 19700101000000 (the epoch) in CSV mode.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from hil.measure.parsing import ascii_float, ascii_int, output_lines, parser
from hil.verdict.errors import ParseError
from hil.verdict.measurement import Measurement, Quantity

DATAGRAM_BYTES = 1470  # iperf 2's UDP payload unless -l says otherwise
RATE_TOLERANCE = 0.05  # bits per second against bytes over an interval printed with one decimal
SHORT_INTERVAL = 0.9  # a stream's report must cover at least this share of the asked duration

_LINE = re.compile(
    r"(?P<stamp>[0-9]{14}(?:\.[0-9]{3})?),(?P<src>[0-9a-fA-F.:]+),(?P<sport>[0-9]+),(?P<dst>[0-9a-fA-F.:]+),"
    r"(?P<dport>[0-9]+),(?P<id>-?[0-9]+),(?P<start>[0-9]+\.[0-9]+)-(?P<end>[0-9]+\.[0-9]+),(?P<bytes>-?[0-9]+),"
    r"(?P<bps>-?[0-9]+),(?P<jitter>-?[0-9]+\.[0-9]+),(?P<lost>-?[0-9]+),(?P<total>-?[0-9]+),"
    r"(?P<loss>-?[0-9]+\.[0-9]+),(?P<ooo>-?[0-9]+)",
    re.ASCII,
)


@dataclass(frozen=True)
class Stream:
    transfer_id: int
    seconds: float
    bytes: int
    bits_per_second: float
    jitter_ms: float
    lost: int
    total: int
    loss_percent: float
    out_of_order: int


def asked(command: str) -> dict[str, float | int]:
    """The client's streams (-P) and seconds (-t) the server's output answers (its capture names both)."""
    words = shlex.split(command.split(" for: ", 1)[-1])
    streams = int(words[words.index("-P") + 1]) if "-P" in words else 1
    seconds = float(words[words.index("-t") + 1]) if "-t" in words else 10.0
    return {"streams": streams, "duration_s": seconds}


@parser("iperf2", asked=asked)
def parse_udp_server(text: str, *, streams: int, duration_s: float) -> Measurement:
    """The server's reports of one `iperf -c ... -u -P streams -t duration_s` run, summed over its streams:
    throughput (bit/s), jitter (ms, the worst stream's), loss (%) and out-of-order datagrams.

    Any other line (a client's "read failed", "connect failed"), a client's own report (-1 datagrams), a
    stream missing or reported twice, a report shorter than the run, or figures that contradict each other
    (rate against bytes and time, bytes against the datagrams that arrived, loss against lost and total) is
    a ParseError with the output."""
    found: dict[int, Stream] = {}
    for line in output_lines(text, "iperf 2"):
        if not line.strip():
            continue
        m = _LINE.fullmatch(line.strip())
        if m is None:
            raise ParseError(f"iperf 2 printed a line that is no server report: {line.strip()[:200]!r}", text)
        stream = _stream(m, text)
        if stream.transfer_id in found:
            raise ParseError(f"iperf 2 reported stream {stream.transfer_id} twice (two runs joined?)", text)
        found[stream.transfer_id] = stream
    if len(found) != streams:
        raise ParseError(f"iperf 2's server reported {len(found)} streams, the client sent {streams}", text)
    for stream in found.values():
        if stream.seconds < SHORT_INTERVAL * duration_s:
            raise ParseError(f"iperf 2 stream {stream.transfer_id} ran {stream.seconds:g} s of {duration_s:g}", text)
    total = sum(s.total for s in found.values())
    lost = sum(s.lost for s in found.values())
    return Measurement(
        {
            "throughput": Quantity(sum(s.bits_per_second for s in found.values()), "bit/s"),
            "jitter": Quantity(max(s.jitter_ms for s in found.values()), "ms"),
            "loss": Quantity(100 * lost / total, "%"),
            "out_of_order": Quantity(float(sum(s.out_of_order for s in found.values())), "count"),
        },
        raw=text,
        duration_s=max(s.seconds for s in found.values()),
        details={"streams": streams, "datagrams": total, "lost_datagrams": lost},
    )


def _stream(m: re.Match[str], text: str) -> Stream:
    line = m.group(0)
    signed = ("id", "bytes", "bps", "lost", "total", "ooo")
    if any(m[key].startswith("-") for key in signed) or m["jitter"].startswith("-") or m["loss"].startswith("-"):
        # -1 datagrams is the client's own line: the server never reported (or was never there).
        raise ParseError(f"iperf 2 line is a client's own report or negative: {line!r}", text)
    numbers = {key: ascii_int(m[key], key, text) for key in signed}
    start, end = ascii_float(m["start"], "interval", text), ascii_float(m["end"], "interval", text)
    stream = Stream(
        transfer_id=numbers["id"],
        seconds=end - start,
        bytes=numbers["bytes"],
        bits_per_second=float(numbers["bps"]),
        jitter_ms=ascii_float(m["jitter"], "jitter", text),
        lost=numbers["lost"],
        total=numbers["total"],
        loss_percent=ascii_float(m["loss"], "loss", text),
        out_of_order=numbers["ooo"],
    )
    _check(stream, line, text)
    return stream


def _check(s: Stream, line: str, text: str) -> None:
    if s.seconds <= 0 or s.total <= 0 or s.bytes <= 0:
        raise ParseError(f"iperf 2 line measured nothing: {line!r}", text)
    # The interval is printed with one decimal: its rounding allows up to 0.05 s either way.
    low, high = s.bytes * 8 / (s.seconds + 0.05), s.bytes * 8 / max(s.seconds - 0.05, 1e-3)
    if not low * (1 - RATE_TOLERANCE) <= s.bits_per_second <= high * (1 + RATE_TOLERANCE):
        raise ParseError(f"iperf 2: {s.bits_per_second:g} bit/s contradicts {s.bytes} bytes in {s.seconds:g} s", text)
    if not s.lost <= s.total or s.out_of_order > s.total:
        raise ParseError(f"iperf 2: {s.lost} lost, {s.out_of_order} out of order of {s.total} datagrams", text)
    if abs(s.loss_percent - 100 * s.lost / s.total) > 0.0005 + 0.001 * s.loss_percent:  # printed with 3 decimals
        raise ParseError(f"iperf 2: {s.loss_percent:g}% lost contradicts {s.lost} of {s.total}: {line!r}", text)
    # Every datagram that arrived carried DATAGRAM_BYTES. An out-of-order datagram may also have been counted
    # lost when its gap was seen (a run on this PC: 3571 datagrams' bytes of 3570, 0 lost, 1 out of order).
    arrived, remainder = divmod(s.bytes, DATAGRAM_BYTES)
    expected = s.total - s.lost
    if remainder or not expected - s.out_of_order <= arrived <= expected + s.out_of_order:
        raise ParseError(
            f"iperf 2: {s.bytes} bytes are not the {expected} datagrams of {DATAGRAM_BYTES} bytes that arrived", text
        )
