"""iperf 2 UDP, read where seed 004 reads it: the server's reports (`iperf -s -u -y C`).

Seed 004 sends UDP at a chosen rate (`iperf -c ... -u -b 50M`, also `-P 10`) and reads the *server's*
rate, jitter, loss and out-of-order datagrams. iperf 2's client cannot be trusted: with no server at all it
exits 0 and prints a rate (what it sent, `-1` datagrams: tests/data/iperf2). The server prints one CSV line
per stream and no SUM line: the streams are summed here.

A server line is iperf 2.1.8's CSV, its fields as `_LINE` names them. The timestamp is not read: 2.1.x prints
19700101000000 (the epoch) in CSV mode.
"""

from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from hil.lab.board import shell
from hil.measure import iperf3
from hil.measure.parsing import ascii_float, ascii_int, covers_asked, output_lines, parser
from hil.verdict.errors import MeasurementError, ParseError
from hil.verdict.measurement import Measurement, Quantity

if TYPE_CHECKING:
    from hil.lab.board.role import Role

DATAGRAM_BYTES = 1470  # iperf 2's UDP payload unless -l says otherwise
RATE_TOLERANCE = 0.05  # bits per second against bytes over an interval printed with one decimal
# In loopback the server's ack of a stream's last datagram goes to the modem, not the client, so the client
# sends that datagram again, up to 10 times (iperf 2's client), and the modem reflects each repeat: the server
# may count some (the virtual lab: 5041 datagrams' bytes for 360 x 14 copies in 3 of 12 runs, 2026-11-25).
FIN_SENDS = 10
REPLICATION_SLACK = 0.01  # copies seen per datagram may fall short of the modem's factor, never exceed it

# The server could not hand a stream's final report to its client: printed whenever the client's side
# does not answer, as in a modem's loopback, where the report goes to the modem and is reflected back to
# the server itself (tests/data/iperf2/loopback-*). It says nothing about the datagrams that arrived.
_ACK_FAILED = re.compile(r"\[ *[0-9]+\] WARNING: ack of last datagram failed\.", re.ASCII)
# Printed when the server is stopped while a stream's thread is still sending its acks (seen with -P 10 on
# the virtual lab); it then waits for them to end. A stream that never reported is still an error.
_STOPPING = "Waiting for server threads to complete. Interrupt again to force quit."

_LINE = re.compile(
    r"(?P<stamp>[0-9]{14}(?:\.[0-9]{3})?),(?P<src>[0-9a-fA-F.:]+),(?P<sport>[0-9]+),(?P<dst>[0-9a-fA-F.:]+),"
    r"(?P<dport>[0-9]+),(?P<transfer_id>-?[0-9]+),(?P<start>[0-9]+\.[0-9]+)-(?P<end>[0-9]+\.[0-9]+),"
    r"(?P<bytes>-?[0-9]+),(?P<bits_per_second>-?[0-9]+),(?P<jitter_ms>-?[0-9]+\.[0-9]+),(?P<lost>-?[0-9]+),"
    r"(?P<total>-?[0-9]+),(?P<loss_percent>-?[0-9]+\.[0-9]+),(?P<out_of_order>-?[0-9]+)",
    re.ASCII,
)
_INTS = ("transfer_id", "bytes", "lost", "total", "out_of_order")
_FLOATS = ("jitter_ms", "loss_percent")


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
    """The client's streams (-P) and seconds (-t) the server's output answers (its capture names both), and
    the copies a modem in loopback makes of each datagram (`(udp_loopback xN)` after the client's command)."""
    client, _, loop = command.split(" for: ", 1)[-1].partition(" (udp_loopback x")
    words = shlex.split(client)
    streams = int(words[words.index("-P") + 1]) if "-P" in words else 1
    seconds = float(words[words.index("-t") + 1]) if "-t" in words else 10.0
    return {"streams": streams, "duration_s": seconds, "replication": int(loop.rstrip(")")) if loop else 1}


@parser("iperf2", asked=asked)
def parse_udp_server(text: str, *, streams: int, duration_s: float, replication: int = 1) -> Measurement:
    """The server's reports of one `iperf -c ... -u -P streams -t duration_s` run, summed over its streams
    (jitter: the worst stream's). `replication`: the copies of each datagram a modem in loopback sends back
    (seed 004's REP_FACTOR), all but the first counted out of order. Any other line, a client's own report,
    a stream missing or twice, a report shorter than the run or contradicting itself: ParseError."""
    found: dict[int, Stream] = {}
    for line in (line.strip() for line in output_lines(text, "iperf 2")):
        if not line or _ACK_FAILED.fullmatch(line) or line == _STOPPING:
            continue
        m = _LINE.fullmatch(line)
        if m is None:
            raise ParseError(f"iperf 2 printed a line that is no server report: {line[:200]!r}", text)
        stream = _stream(m, text, replication)
        if stream.transfer_id in found:
            raise ParseError(f"iperf 2 reported stream {stream.transfer_id} twice (two runs joined?)", text)
        found[stream.transfer_id] = stream
    if len(found) != streams:
        raise ParseError(f"iperf 2's server reported {len(found)} streams, the client sent {streams}", text)
    for stream in found.values():
        covers_asked(stream.seconds, duration_s, f"iperf 2 stream {stream.transfer_id}", text)
    total = sum(s.total for s in found.values())
    lost = sum(s.lost for s in found.values())
    out_of_order = sum(s.out_of_order for s in found.values())
    arrived = sum(s.bytes for s in found.values()) // DATAGRAM_BYTES
    seen = arrived / (total - lost) if total > lost else 0.0  # copies per delivered datagram
    if replication > 1 and seen > replication * (1 + REPLICATION_SLACK):
        raise ParseError(
            f"the server received {seen:.2f} copies of each datagram, the modem makes {replication}: "
            "other traffic reached its port, or the loopback is not the one configured",
            text,
        )
    return Measurement(
        {
            "throughput": Quantity(sum(s.bits_per_second for s in found.values()), "bit/s"),
            "jitter": Quantity(max(s.jitter_ms for s in found.values()), "ms"),
            "loss": Quantity(100 * lost / total, "%"),
            "out_of_order": Quantity(float(out_of_order), "count"),
            # Per datagram sent: a modem in loopback makes each copy after the first one (seed 004: ~13 of 14)
            "out_of_order_per_datagram": Quantity(out_of_order / total, "count"),
        },
        raw=text,
        duration_s=max(s.seconds for s in found.values()),
        details={
            "streams": streams,
            "datagrams": total,
            "lost_datagrams": lost,
            "arrived_datagrams": arrived,
            **({"replication_seen": round(seen, 3)} if replication > 1 else {}),
        },
        bytes_received=sum(s.bytes for s in found.values()),
    )


def _stream(m: re.Match[str], text: str, replication: int) -> Stream:
    line = m.group(0)
    if any(m[key].startswith("-") for key in (*_INTS, *_FLOATS, "bits_per_second")):
        # -1 datagrams is the client's own line: the server never reported (or was never there).
        raise ParseError(f"iperf 2 line is a client's own report or negative: {line!r}", text)
    stream = Stream(
        seconds=ascii_float(m["end"], "interval", text) - ascii_float(m["start"], "interval", text),
        bits_per_second=float(ascii_int(m["bits_per_second"], "bits_per_second", text)),
        **{key: ascii_int(m[key], key, text) for key in _INTS},
        **{key: ascii_float(m[key], key, text) for key in _FLOATS},
    )
    _check(stream, line, text, replication)
    return stream


def _check(s: Stream, line: str, text: str, replication: int) -> None:
    if s.seconds <= 0 or s.total <= 0 or s.bytes <= 0:
        raise ParseError(f"iperf 2 line measured nothing: {line!r}", text)
    # The interval is printed with one decimal: its rounding allows up to 0.05 s either way.
    low, high = s.bytes * 8 / (s.seconds + 0.05), s.bytes * 8 / max(s.seconds - 0.05, 1e-3)
    if not low * (1 - RATE_TOLERANCE) <= s.bits_per_second <= high * (1 + RATE_TOLERANCE):
        raise ParseError(f"iperf 2: {s.bits_per_second:g} bit/s contradicts {s.bytes} bytes in {s.seconds:g} s", text)
    if not s.lost <= s.total or s.out_of_order > s.total * replication:
        copies = f" (the modem makes {replication} copies of each)" if replication > 1 else ""
        raise ParseError(f"iperf 2: {s.lost} lost, {s.out_of_order} out of order of {s.total} datagrams{copies}", text)
    if abs(s.loss_percent - 100 * s.lost / s.total) > 0.0005 + 0.001 * s.loss_percent:  # printed with 3 decimals
        raise ParseError(f"iperf 2: {s.loss_percent:g}% lost contradicts {s.lost} of {s.total}: {line!r}", text)
    # Every datagram that arrived carried DATAGRAM_BYTES. An out-of-order datagram may also have been counted
    # lost when its gap was seen (a run on this PC: 3571 datagrams' bytes of 3570, 0 lost, 1 out of order), so
    # the bytes may exceed the datagrams not lost by the out-of-order count, never fall short of them.
    arrived, remainder = divmod(s.bytes, DATAGRAM_BYTES)
    expected = s.total - s.lost
    most = s.total * replication + (FIN_SENDS * replication if replication > 1 else 0)
    if remainder or not expected <= arrived <= min(expected + s.out_of_order, most):
        raise ParseError(
            f"iperf 2: {s.bytes} bytes are not the {expected} datagrams of {DATAGRAM_BYTES} bytes that arrived", text
        )


# --- a loopback run (seed 004): server and client on the board, the modem reflecting between them --------

PORT = 5001  # iperf 2's default, as seed 004 runs it
STOP_GRACE_S = 20  # a stopped server finishes its streams' acks (10 tries each) before it exits


class Endpoint(iperf3.Endpoint, Protocol):
    """Where the board's end of the link is (iperf3.Endpoint), with its address."""

    address: str


def server_command(*, bind: str, port: int = PORT) -> str:
    return shell.cmd("iperf", "-s", "-u", "-y", "C", "-B", bind, "-p", port)


def client_command(
    modem: str, *, bind: str, port: int = PORT, rate_mbps: float, duration_s: int, streams: int = 1
) -> str:
    """`iperf -c MODEM -u -b RATE` from the board's address, `-P streams` in parallel (seed 004: 50M, -P 10)."""
    if not rate_mbps > 0 or streams < 1 or duration_s < 1:
        raise ValueError(f"iperf 2 needs a rate > 0, >= 1 stream and >= 1 s (got {rate_mbps}, {streams}, {duration_s})")
    argv: list[object] = ["iperf", "-c", modem, "-p", port, "-u", "-b", f"{rate_mbps:g}M", "-t", duration_s]
    return shell.cmd(*argv, "-P", streams, "-y", "C", "-B", bind)


def loopback(
    board: Endpoint, modem: str, *, rate_mbps: float, duration_s: int, streams: int, replication: int, port: int = PORT
) -> Measurement:
    """One seed-004 run: the board's iperf 2 server, its client sending to the modem, the modem reflecting
    each datagram `replication` times back to the server; the server's figures (parse_udp_server)."""
    client = client_command(
        modem, bind=board.address, port=port, rate_mbps=rate_mbps, duration_s=duration_s, streams=streams
    )
    started = time.time()
    server = board.role.background(
        board.wrap(server_command(bind=board.address, port=port)),
        ready_command=f"grep -qi ':{port:04X} ' /proc/net/udp",  # port bound: no banner in CSV mode
        name="iperf 2 server",
        stop_timeout_s=STOP_GRACE_S,
    )
    with server:
        exitcode, said = board.role.run_status(board.wrap(client), timeout=duration_s + 60)
    if exitcode != 0:
        raise MeasurementError(f"iperf 2 client exited {exitcode}", raw_output=said)
    measurement = parse_udp_server(server.output, streams=streams, duration_s=duration_s, replication=replication)
    measurement.details["client"] = said.strip()[-500:]
    measurement.started = started
    return measurement


def version(role: Role) -> str:
    return role.run("iperf -v 2>&1 | head -n 1", check=False).strip() or "iperf (version unknown)"
