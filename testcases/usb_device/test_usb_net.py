"""USB network gadgets (ECM, NCM, RNDIS) with iperf3, as seed 000 §2.2 measures USB Ethernet: TCP in both
directions, and UDP first at the link's theoretical rate, then at the rate that run measured.

The board runs the gadget and the iperf3 server; the host runs the client. Directions are the board's
(tx: the gadget sends). Every sample must show in both interfaces' byte counters, and after the TCP samples
random data sent the same way must arrive whole (SHA-256 at both ends). A FAIL or REGRESSION is
diagnosed: the receiving end's receive path and sockets during one more run (hil.diagnose.network).
"""

import pytest

import hil
from hil.catalogue.usb_network import NetSettings
from hil.diagnose.network import NetworkDiagnosis
from hil.lab.network.netns import usb_network
from hil.lab.usb_gadget.gadget import network_function
from hil.lab.usb_gadget.on_link import gadget_on
from hil.measure import integrity, iperf3, netpath, udp_two_step

pytestmark = [
    pytest.mark.hil_metrics(
        "usb.net.tcp.tx",
        "usb.net.tcp.rx",
        "usb.net.udp.throughput",
        "usb.net.udp.jitter",
        "usb.net.udp.loss",
        "usb.net.udp.out_of_order",
    ),
    # tcp_payload: hil's own program (hil/tools), the TCP cases' payload check (integrity.over_tcp)
    pytest.mark.hil_tools(host=["iperf3", "tcp_payload"], device=["iperf3", "tcp_payload"]),
]
FUNCTIONS = hil.matrix("function", quick=["ecm"], full=["ecm", "ncm", "rndis"], ids="{}")
UDP = ["usb.net.udp.throughput", "usb.net.udp.jitter", "usb.net.udp.loss", "usb.net.udp.out_of_order"]


@FUNCTIONS
@pytest.mark.parametrize("direction", ["tx", "rx"])
def test_usb_net_tcp(pair, perf, function, direction):
    net = pair.settings(NetSettings)
    seconds = net.duration_s
    with (
        gadget_on(pair, network_function(function)) as gadget,
        usb_network(gadget, carrier_timeout_s=net.carrier_timeout_s) as link,
        iperf3.server(link.device),
    ):

        def tcp():
            return netpath.measure(
                link.path(device_sends=direction == "tx"),
                lambda: iperf3.tcp(link.host, link.device.address, duration_s=seconds, reverse=direction == "tx"),
            )

        perf.check(
            f"usb.net.tcp.{direction}",
            function=function,
            facts={"tool": iperf3.version(pair.host)},
            sample=tcp,
            verify=lambda: integrity.over_tcp(
                link.receiver(device_sends=direction == "tx"),
                link.device if direction == "tx" else link.host,
                link.receiver(device_sends=direction == "tx").address,
            ),
            diagnosis=NetworkDiagnosis(link.device, link.receiver(device_sends=direction == "tx"), tcp),
        )


@FUNCTIONS
@hil.matrix("direction", quick=["tx"], full=["tx", "rx"], ids="{}")
def test_usb_net_udp(pair, perf, function, direction):
    net = pair.settings(NetSettings)
    seconds = net.duration_s
    start_mbps = net.udp_start_mbps or udp_two_step.start_rate_mbps(pair.link.speed)
    with (
        gadget_on(pair, network_function(function)) as gadget,
        usb_network(gadget, carrier_timeout_s=net.carrier_timeout_s) as link,
        iperf3.server(link.device),
    ):

        def udp(rate_mbps):
            return netpath.measure(
                link.path(device_sends=direction == "tx"),
                lambda: iperf3.udp(
                    link.host, link.device.address, rate_mbps=rate_mbps, duration_s=seconds, reverse=direction == "tx"
                ),
            )

        first = udp_two_step.first_run(udp, start_mbps)
        perf.check(
            UDP,
            function=function,
            direction=direction,
            facts={"tool": iperf3.version(pair.host), "udp_first_run": first.describe()},
            sample=lambda: udp(first.measured_mbps),
            diagnosis=NetworkDiagnosis(
                link.device, link.receiver(device_sends=direction == "tx"), lambda: udp(first.measured_mbps)
            ),
        )
