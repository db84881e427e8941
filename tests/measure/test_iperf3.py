"""hil.measure.iperf3 on real `iperf3 -J` output (tests/data/iperf3: loopback captures from capture.sh, and
vlab-* captures from the virtual board over USB gadget links), and the commands it builds."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from hil.measure import iperf3
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "iperf3"


def _capture(name: str) -> tuple[str, dict[str, str]]:
    source = dict(line.split(": ", 1) for line in (DATA / f"{name}.source").read_text().splitlines())
    return (DATA / f"{name}.txt").read_text(), source


def _captures(protocol: str) -> list[str]:
    names = []
    for path in sorted(DATA.glob("*.txt")):
        text = path.read_text()
        if f'"protocol":\t"{protocol}"' in text and '"error"' not in text:
            names.append(path.stem)
    return names


TCP, UDP = _captures("TCP"), _captures("UDP")


def test_the_captures_cover_both_protocols_both_directions_and_the_virtual_board():
    assert len(TCP) >= 2 and len(UDP) >= 2
    commands = [_capture(name)[1]["command"] for name in TCP + UDP]
    assert any("--reverse" in c for c in commands) and any("--reverse" not in c for c in commands)
    assert any(name.startswith("vlab-") for name in TCP) and any(name.startswith("vlab-") for name in UDP)


@pytest.mark.parametrize("name", TCP)
def test_tcp_reads_the_receivers_end_summary(name):
    text, source = _capture(name)
    document = json.loads(text)
    measurement = iperf3.parse_tcp(text)
    received = document["end"]["sum_received"]
    assert measurement.values["throughput"].unit == "bit/s"
    assert measurement.values["throughput"].value == received["bits_per_second"]
    assert measurement.bytes_received == received["bytes"] > 0
    # The end summary, not an interval: it covers the whole run the command asked for.
    duration = int(shlex.split(source["command"])[shlex.split(source["command"]).index("--time") + 1])
    assert measurement.duration_s == pytest.approx(duration, rel=0.05)
    assert document["start"]["test_start"]["reverse"] == ("--reverse" in source["command"])


@pytest.mark.parametrize("name", UDP)
def test_udp_reads_throughput_jitter_loss_and_out_of_order_from_one_run(name):
    text, source = _capture(name)
    measurement = iperf3.parse_udp(text)
    received = json.loads(text)["end"]["sum_received"]
    values = measurement.values
    assert set(values) == {"throughput", "jitter", "loss", "out_of_order"}
    assert values["throughput"].value == received["bits_per_second"]
    assert (values["jitter"].value, values["jitter"].unit) == (received["jitter_ms"], "ms")
    assert values["loss"].unit == "%" and values["out_of_order"].unit == "count"
    lost, packets = measurement.details["lost_packets"], measurement.details["packets"]
    assert values["loss"].value == received["lost_percent"]
    # iperf3 3.12 divides by the datagrams received or by those sent (reverse runs), see parse_udp
    sent = json.loads(text)["end"]["sum_sent"]["packets"]
    assert any(
        values["loss"].value == pytest.approx(100 * lost / count, rel=0.02, abs=0.01) for count in (packets, sent)
    )
    rate = shlex.split(source["command"])[shlex.split(source["command"]).index("--bitrate") + 1]
    assert measurement.details["target_mbps"] == pytest.approx(float(rate.removesuffix("M")))


def test_a_lossy_run_reports_its_loss():
    measurement = iperf3.parse_udp(_capture("loopback-udp-lossy")[0])
    assert measurement.values["loss"].value > 0
    assert measurement.bytes_received < measurement.details["bytes_sent"]


def test_an_error_document_is_a_parse_error_even_though_iperf3_exited_0():
    text, source = _capture("refused")
    assert source["exit"] == "0"  # iperf3 3.12 -J: the exit status does not tell
    for parse in (iperf3.parse_tcp, iperf3.parse_udp):
        with pytest.raises(ParseError, match="Connection refused") as caught:
            parse(text)
        assert caught.value.raw_output == text


def test_the_other_protocols_output_is_a_parse_error():
    with pytest.raises(ParseError, match="'UDP' test, expected TCP"):
        iperf3.parse_tcp(_capture(UDP[0])[0])
    with pytest.raises(ParseError, match="'TCP' test, expected UDP"):
        iperf3.parse_udp(_capture(TCP[0])[0])


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.9, 0.999])
def test_truncated_output_is_a_parse_error_keeping_the_raw_text(cut):
    text = _capture(UDP[0])[0]
    truncated = text[: int(len(text) * cut)]
    with pytest.raises(ParseError) as caught:
        iperf3.parse_udp(truncated)
    assert caught.value.raw_output == truncated


def test_garbage_and_trailing_output_are_parse_errors():
    text = _capture(TCP[0])[0]
    for bad in ("", "iperf3: error - unable to connect", text + "\n{}\n", text + "\nsegfault\n"):
        with pytest.raises(ParseError):
            iperf3.parse_tcp(bad)


def _scale(summary: dict, factor: float) -> None:
    summary.update(bytes=round(summary["bytes"] * factor), bits_per_second=summary["bits_per_second"] * factor)


def _edited(name: str, edit) -> str:
    """A real capture with one field changed (built here, never stored as data)."""
    document = json.loads(_capture(name)[0])
    edit(document["end"])
    return json.dumps(document)


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (
            lambda end: _scale(end["sum_received"], 2 * end["sum_sent"]["bytes"] / end["sum_received"]["bytes"]),
            "more than",
        ),
        (lambda end: end["sum_received"].update(bits_per_second=end["sum_received"]["bits_per_second"] * 2), "match"),
        (lambda end: end["sum_received"].update(bytes=0), "nothing was transferred"),
        (lambda end: end.pop("sum_received"), "no 'end/sum_received/bytes'"),
        (lambda end: end["sum_received"].update(bytes="1000"), "not a number"),
    ],
)
def test_a_summary_that_contradicts_itself_is_a_parse_error(edit, problem):
    with pytest.raises(ParseError, match=re.escape(problem)):
        iperf3.parse_tcp(_edited(TCP[0], edit))


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (
            lambda end: end["sum_received"].update(
                lost_packets=max(end["sum_received"]["packets"], end["sum_sent"]["packets"]) + 1
            ),
            "datagrams lost",
        ),
        (lambda end: end["sum_received"].update(lost_percent=50.0, lost_packets=0), "matches neither"),
        (lambda end: end.update(streams=[]), "out-of-order"),
        # Found by the issue "numbers that cannot lie": each was a number before.
        (lambda end: end["sum_received"].update(lost_percent=-0.004), "datagrams lost is -0.004%"),
        (lambda end: end["streams"][0]["udp"].update(out_of_order=2.5), "2.5 of"),
        (lambda end: end["streams"][0]["udp"].update(out_of_order=-3), "-3 of"),
        (
            lambda end: end["sum_received"].update(
                lost_packets=end["sum_received"]["packets"], lost_percent=100.0
            ),  # all lost, yet bytes received
            "bytes received, but",
        ),
    ],
)
def test_udp_loss_figures_that_disagree_are_a_parse_error(edit, problem):
    with pytest.raises(ParseError, match=re.escape(problem)):
        iperf3.parse_udp(_edited(UDP[0], edit))


def test_client_commands_quote_every_value():
    tcp = iperf3.client_command("10.77.0.1", duration_s=3, reverse=True)
    assert shlex.split(tcp) == [
        "iperf3",
        "--client",
        "10.77.0.1",
        "--port",
        "5201",
        "--time",
        "3",
        "--json",
        "--reverse",
    ]
    udp = iperf3.client_command("10.77.0.1; reboot", duration_s=3, udp_mbps=425.984)
    assert shlex.split(udp)[2] == "10.77.0.1; reboot"
    assert shlex.split(udp)[-3:] == ["--udp", "--bitrate", "425.984M"]
    with pytest.raises(ValueError):
        iperf3.client_command("10.77.0.1", duration_s=3, udp_mbps=0)


def test_loss_is_iperf3s_own_percentage_when_its_denominator_differs_slightly():
    # Real output: 843 of 19314 datagrams lost, printed as 4.35164% (iperf3 divides by its expected count).
    text, _ = _capture("vlab-ecm-hs-udp-tx-loss-denominator")
    received = json.loads(text)["end"]["sum_received"]
    assert received["lost_percent"] != pytest.approx(100 * received["lost_packets"] / received["packets"], abs=1e-3)
    assert iperf3.parse_udp(text).values["loss"].value == received["lost_percent"]


@pytest.mark.parametrize(("name", "parse"), [("loopback-tcp-interrupted", "tcp"), ("vlab-ncm-hs-udp-tx-stuck", "udp")])
def test_an_interrupted_client_is_a_parse_error_though_its_summary_is_complete(name, parse):
    text, source = _capture(name)
    assert "timeout -s INT" in source["command"]
    assert "sum_received" in json.loads(text)["end"]  # the numbers are there: the error must still win
    with pytest.raises(ParseError, match="interrupt - the client has terminated"):
        getattr(iperf3, f"parse_{parse}")(text)
