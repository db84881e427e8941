"""USB network gadgets (ECM, NCM, RNDIS) with iperf3, as seed 000 §2.2 measures USB Ethernet: TCP in both
directions, and UDP first at the link's theoretical rate, then at the rate that run measured.

The board runs the gadget and the iperf3 server; the host runs the client. Directions are the board's
(tx: the gadget sends). Every sample must show in both interfaces' byte counters.
"""

import pytest

import hil
from hil.lab.gadget import network_function
from hil.lab.netns import link_rate_mbps, usb_network
from hil.measure import iperf3

pytestmark = pytest.mark.hil_metrics(
    "usb.net.tcp.tx",
    "usb.net.tcp.rx",
    "usb.net.udp.throughput",
    "usb.net.udp.jitter",
    "usb.net.udp.loss",
    "usb.net.udp.out_of_order",
)
FUNCTIONS = hil.matrix("function", quick=["ecm"], full=["ecm", "ncm", "rndis"], ids="{}")
UDP = ["usb.net.udp.throughput", "usb.net.udp.jitter", "usb.net.udp.loss", "usb.net.udp.out_of_order"]


@FUNCTIONS
@pytest.mark.parametrize("direction", ["tx", "rx"])
def test_usb_net_tcp(pair, perf, function, direction):
    seconds = pair.setting("net.duration_s")
    with (
        pair.gadget(network_function(function)) as gadget,
        usb_network(gadget, carrier_timeout_s=pair.setting("net.carrier_timeout_s")) as link,
        iperf3.server(link.device),
    ):
        perf.check(
            f"usb.net.tcp.{direction}",
            function=function,
            facts={"tool": iperf3.version(pair.host)},
            sample=lambda: link.measure(
                lambda: iperf3.tcp(link.host, link.device.address, duration_s=seconds, reverse=direction == "tx"),
                device_sends=direction == "tx",
            ),
        )


@FUNCTIONS
@hil.matrix("direction", quick=["tx"], full=["tx", "rx"], ids="{}")
def test_usb_net_udp(pair, perf, function, direction):
    seconds = pair.setting("net.duration_s")
    start_mbps = pair.setting("net.udp_start_mbps") or link_rate_mbps(pair.link)
    with (
        pair.gadget(network_function(function)) as gadget,
        usb_network(gadget, carrier_timeout_s=pair.setting("net.carrier_timeout_s")) as link,
        iperf3.server(link.device),
    ):

        def udp(rate_mbps):
            return link.measure(
                lambda: iperf3.udp(
                    link.host, link.device.address, rate_mbps=rate_mbps, duration_s=seconds, reverse=direction == "tx"
                ),
                device_sends=direction == "tx",
            )

        first = udp(start_mbps)
        measured = iperf3.mbps(first)
        perf.check(
            UDP,
            function=function,
            direction=direction,
            facts={
                "tool": iperf3.version(pair.host),
                "udp_first_run": f"{start_mbps:.1f} Mbit/s offered, {measured:.1f} Mbit/s received, "
                f"{first.values['loss'].value:.2f}% lost",
            },
            sample=lambda: udp(measured),
        )
