"""A USB Ethernet adapter on the board, the board being the USB host, as the Rockchip USB guide measures it
(seed 000, "USB Ethernet 传输速率分析"): the lab PC at the other end of the cable runs the iperf3 server, the
board the client; TCP both ways, and UDP first at the link's rate, then again at the rate that run measured.
Directions are the board's (tx: the board sends).

Before any figure: the adapter enumerated at the pair's USB speed, its driver and Ethernet rate are recorded,
and the board's route to the PC goes through it (hil.lab.network.usbethernet). Every sample must show in the
adapter's byte counters; its error and drop counters are stored with each sample, errors that grew flagged.
A FAIL or REGRESSION is diagnosed: the receiving end's receive path and sockets during one more run
(hil.diagnose.network).
"""

import pytest

import hil
from hil.catalogue.usb_network import EthernetSettings
from hil.diagnose.network import NetworkDiagnosis
from hil.lab.network.usbethernet import usb_ethernet
from hil.measure import iperf3, netpath, udp_two_step

pytestmark = [
    pytest.mark.hil_metrics(
        "usb.ethernet.tcp.tx",
        "usb.ethernet.tcp.rx",
        "usb.ethernet.udp.throughput",
        "usb.ethernet.udp.jitter",
        "usb.ethernet.udp.loss",
        "usb.ethernet.udp.out_of_order",
    ),
    pytest.mark.hil_tools(host=["iperf3"]),
]
UDP = [
    "usb.ethernet.udp.throughput",
    "usb.ethernet.udp.jitter",
    "usb.ethernet.udp.loss",
    "usb.ethernet.udp.out_of_order",
]


@pytest.fixture
def nic(pair):
    """The adapter up and routed to the PC, the PC's iperf3 server on a free port: (link, port)."""
    with usb_ethernet(pair) as link, iperf3.server_on_free_port(link.peer, bind=link.peer.listen) as port:
        yield link, port


def _diagnosis(link, direction, transfer):
    """The receive path and sockets of the end that receives: the PC when the board sends, else the board."""
    return NetworkDiagnosis(link.board, link.peer if direction == "tx" else link.board, transfer)


def _tools(pair, link):
    return f"{iperf3.version(pair.host)} (board), {iperf3.version(link.peer.role)} (peer)"


@pytest.mark.parametrize("direction", ["tx", "rx"])
def test_usb_ethernet_tcp(pair, perf, nic, direction):
    link, port = nic
    seconds = pair.settings(EthernetSettings).duration_s

    def tcp():
        return netpath.measure(
            link.path(board_sends=direction == "tx"),
            lambda: iperf3.tcp(link.board, link.peer.address, duration_s=seconds, reverse=direction == "rx", port=port),
        )

    perf.check(
        f"usb.ethernet.tcp.{direction}",
        cpu_load_on="host",
        facts={"tool": _tools(pair, link)},
        sample=tcp,
        diagnosis=_diagnosis(link, direction, tcp),
        **link.params,
    )


@hil.matrix("direction", quick=["tx"], full=["tx", "rx"], ids="{}")
def test_usb_ethernet_udp(pair, perf, nic, direction):
    link, port = nic
    ethernet = pair.settings(EthernetSettings)
    seconds = ethernet.duration_s
    start_mbps = ethernet.udp_start_mbps or udp_two_step.start_rate_mbps(pair.link.speed, link.ethernet_mbps)

    def udp(rate_mbps):
        return netpath.measure(
            link.path(board_sends=direction == "tx"),
            lambda: iperf3.udp(
                link.board,
                link.peer.address,
                rate_mbps=rate_mbps,
                duration_s=seconds,
                reverse=direction == "rx",
                port=port,
            ),
        )

    first = udp_two_step.first_run(udp, start_mbps)
    perf.check(
        UDP,
        direction=direction,
        cpu_load_on="host",
        facts={"tool": _tools(pair, link), "udp_first_run": first.describe()},
        sample=lambda: udp(first.measured_mbps),
        diagnosis=_diagnosis(link, direction, lambda: udp(first.measured_mbps)),
        **link.params,
    )
