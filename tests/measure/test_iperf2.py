"""hil.measure.iperf2 on real iperf 2.1.8 output (tests/data/iperf2, see capture.sh): the server's reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.measure import iperf2
from hil.measure.parsing import PARSERS
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "iperf2"


def _capture(name: str) -> tuple[str, dict]:
    source = dict(line.split(": ", 1) for line in (DATA / f"{name}.source").read_text().splitlines())
    return (DATA / f"{name}.txt").read_text(), iperf2.asked(source["command"])


def test_registered_with_its_captures():
    assert PARSERS["hil.measure.iperf2.parse_udp_server"].data == "iperf2"


def test_one_stream_is_the_servers_rate_jitter_loss_and_out_of_order():
    text, asked = _capture("udp-50M-server")
    fields = text.strip().split(",")
    m = iperf2.parse_udp_server(text, **asked)
    assert asked == {"streams": 1, "duration_s": 2.0, "replication": 1}
    assert m.values["throughput"].value == float(fields[8]) and m.values["throughput"].unit == "bit/s"
    assert 45e6 < m.values["throughput"].value < 55e6  # -b 50M
    assert (m.values["jitter"].value, m.values["loss"].value) == (float(fields[9]), 0.0)
    assert m.details["datagrams"] == int(fields[11])


def test_parallel_streams_are_summed_as_the_server_saw_them():
    # -P 4 at 20M each: four server lines, in the order they ended, and no SUM line to read.
    text, asked = _capture("udp-P4-20M-server")
    lines = [line.split(",") for line in text.strip().splitlines()]
    m = iperf2.parse_udp_server(text, **asked)
    assert asked["streams"] == 4 and sorted(int(f[5]) for f in lines) == [1, 2, 3, 4]
    assert m.values["throughput"].value == sum(float(f[8]) for f in lines)
    lost, total = sum(int(f[10]) for f in lines), sum(int(f[11]) for f in lines)
    assert m.values["loss"].value == pytest.approx(100 * lost / total)
    assert m.values["jitter"].value == max(float(f[9]) for f in lines)


def test_a_modems_loopback_is_every_copy_the_server_received():
    # Seed 004: the modem sends each datagram back REP_FACTOR (14) times; the server counts the copies after the
    # first as out of order and their bytes as received, and says it could not hand its report to the client.
    text, asked = _capture("loopback-x14-P4-2M-server")
    assert asked == {"streams": 4, "duration_s": 2.0, "replication": 14}
    rows = [line.split(",") for line in text.splitlines() if "," in line]
    m = iperf2.parse_udp_server(text, **asked)
    assert m.values["throughput"].value == sum(float(f[8]) for f in rows)  # 14x the 4 x 2 Mbit/s offered
    assert 100e6 < m.values["throughput"].value < 4 * 2.2e6 * 14
    assert m.values["out_of_order"].value == sum(int(f[13]) for f in rows) == 18644
    # per datagram sent: 18644 of 1440, 12.95 of the 13 copies after the first (seed 004: 41251 a second at 38M,
    # about 3230 datagrams: 12.8)
    assert m.values["out_of_order_per_datagram"].value == pytest.approx(18644 / 1440)
    assert m.details["arrived_datagrams"] * iperf2.DATAGRAM_BYTES == m.bytes_received
    assert m.details["arrived_datagrams"] <= 14 * m.details["datagrams"]
    with pytest.raises(ParseError, match="out of order of"):  # the same output cannot come from one copy each
        iperf2.parse_udp_server(text, **{**asked, "replication": 1})


def test_a_repeat_of_the_last_datagram_reflected_by_the_modem_is_counted_not_refused():
    # The server's ack of the last datagram goes to the modem, so the client sends it again and the modem reflects
    # the repeat: 5041 datagrams' bytes for 360 x 14 (a virtual-lab run). Up to iperf 2's 10 sends, times the
    # copies, are its; the rate the server printed is what it received.
    text, asked = _capture("loopback-x14-P2-2M-fin-repeat-server")
    m = iperf2.parse_udp_server(text, **asked)
    assert m.details["arrived_datagrams"] == 5041 + 4971 and m.details["datagrams"] == 720
    assert m.details["replication_seen"] == round((5041 + 4971) / 720, 3)


def test_more_copies_per_datagram_in_total_than_the_modem_makes_is_an_error():
    # A stream of the capture with 30 of 360 datagrams lost and 4600 received: every per-stream bound holds for
    # 13 copies (4400 out of order <= 360 x 13; 4600 <= 330 + 4400), but 4600 / 330 = 13.9 copies were seen.
    text, asked = _capture("loopback-x14-P2-2M-fin-repeat-server")
    f = text.splitlines()[0].split(",")
    lossy = ",".join([*f[:7], str(4600 * 1470), str(4600 * 1470 * 8 // 2), f[9], "30", "360", "8.333", "4400"])
    parsed = iperf2.parse_udp_server(lossy, **{**asked, "streams": 1})  # 14 copies: fine
    assert parsed.details["replication_seen"] == round(4600 / 330, 3)
    with pytest.raises(ParseError, match=r"13\.94 copies of each datagram, the modem makes 13"):
        iperf2.parse_udp_server(lossy, **{**asked, "streams": 1, "replication": 13})


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("udp-no-server-client", "client's own report"),  # iperf 2 exits 0 and prints a rate with no server
        ("udp-50M-client", "client's own report"),  # -1 datagrams: the client's view, even with a server
        ("tcp-refused-client", "no server report: 'tcp connect failed: Connection refused'"),
    ],
)
def test_what_the_client_prints_is_no_measurement(name, problem):
    text, asked = _capture(name)
    assert "exit: 0" in (DATA / f"{name}.source").read_text()  # iperf 2 exited 0 every time
    with pytest.raises(ParseError, match=problem):
        iperf2.parse_udp_server(text, **asked)


def test_a_stream_missing_or_reported_twice_is_refused():
    text, asked = _capture("udp-P4-20M-server")
    lines = text.strip().splitlines()
    with pytest.raises(ParseError, match="reported 3 streams, the client sent 4"):
        iperf2.parse_udp_server("\n".join(lines[:3]), **asked)
    with pytest.raises(ParseError, match="twice"):
        iperf2.parse_udp_server(text + text, **asked)


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda f: f.__setitem__(8, str(int(f[8]) * 2)), "bit/s contradicts"),
        (lambda f: f.__setitem__(7, str(int(f[7]) - 1470)), "datagrams of 1470 bytes that arrived"),
        (lambda f: f.__setitem__(12, "5.000"), "% lost contradicts"),
        (lambda f: f.__setitem__(6, "0.0-1.0"), "contradicts|ran 1 s of 2"),
    ],
)
def test_a_server_line_that_contradicts_itself_is_refused(edit, problem):
    text, asked = _capture("udp-50M-server")
    fields = text.strip().split(",")
    edit(fields)
    with pytest.raises(ParseError, match=problem):
        iperf2.parse_udp_server(",".join(fields) + "\n", **asked)
