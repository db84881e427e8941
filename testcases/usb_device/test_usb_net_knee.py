"""Seed 004's offered-rate sweep on a USB network gadget (ECM): iperf3 UDP offered a step at a time
(`net.udp_sweep_step_mbps`, twice that, ... up to `net.udp_sweep_top_mbps`) until the loss passes
usb.net.udp.loss's band for that direction; the knee is the highest rate before it. The receiving role's socket
buffer sizes are recorded. Only pairs whose boards.yaml names usb.net.udp.knee run it.
"""

import pytest

import hil
from hil.catalogue.usb_network import NetSettings
from hil.lab.network.netns import usb_network
from hil.lab.usb_gadget.gadget import network_function
from hil.lab.usb_gadget.on_link import gadget_on
from hil.measure import iperf3, netpath, udp_two_step

pytestmark = [pytest.mark.hil_metrics("usb.net.udp.knee"), pytest.mark.hil_tools(host=["iperf3"], device=["iperf3"])]


@hil.matrix("direction", quick=["tx"], full=["tx", "rx"], ids="{}")
def test_usb_net_udp_knee(pair, perf, direction):
    net = pair.settings(NetSettings)
    loss = perf.band("usb.net.udp.loss", function="ecm", direction=direction)
    if loss is None or loss.high is None:
        pytest.skip(f"{pair.name}: the knee needs usb.net.udp.loss's maximum for ecm {direction}")
    top = net.udp_sweep_top_mbps or udp_two_step.start_rate_mbps(pair.link.speed)
    with (
        gadget_on(pair, network_function("ecm")) as gadget,
        usb_network(gadget, carrier_timeout_s=net.carrier_timeout_s) as link,
        iperf3.server(link.device),
    ):
        receiver = link.receiver(device_sends=direction == "tx")

        def udp(rate_mbps):
            return netpath.measure(
                link.path(device_sends=direction == "tx"),
                lambda: iperf3.udp(
                    link.host,
                    link.device.address,
                    rate_mbps=rate_mbps,
                    duration_s=net.duration_s,
                    reverse=direction == "tx",
                ),
            )

        buffers = udp_two_step.receive_buffers(receiver.role)
        perf.check(
            "usb.net.udp.knee",
            function="ecm",
            direction=direction,
            facts={
                "tool": iperf3.version(pair.host),
                "receive_buffer": f"{receiver.role.name}: net.core.rmem_default {buffers.get('rmem_default')}, "
                f"rmem_max {buffers.get('rmem_max')}",
            },
            sample=lambda: udp_two_step.knee(udp, udp_two_step.sweep_rates(net.udp_sweep_step_mbps, top), loss.high),
        )
