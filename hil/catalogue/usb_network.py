"""USB network gadgets (ECM, NCM, RNDIS): iperf3 between the board's gadget interface and the host's
(seed 000 "USB Ethernet 传输速率分析" §2.2 for the procedure, "USB Rndis 传输速率分析" for the figures).

Directions are the board's: tx is the gadget sending to the host, rx the host sending to the gadget.
The function (ecm, ncm, rndis) and, for UDP, the direction are test parameters.
"""

from __future__ import annotations

from hil.catalogue.ceilings import UsbNetwork
from hil.catalogue.model import Family, Metric, Setting
from hil.verdict.spec import Direction

IPERF = 'seed 000 "USB Ethernet 传输速率分析" (iperf), "USB Rndis 传输速率分析"'
UDP = 'seed 000 "USB Ethernet 传输速率分析": UDP at the link rate, then at the measured rate'

NET = Family(
    name="usb.net",
    title="USB network gadget (ECM, NCM, RNDIS)",
    metrics=(
        Metric(
            "usb.net.tcp.tx",
            unit="Mbit/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbNetwork(),
            seed=IPERF,
            description="iperf3 -J TCP, gadget to host: the receiver's throughput",
        ),
        Metric(
            "usb.net.tcp.rx",
            unit="Mbit/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbNetwork(),
            seed=IPERF,
            description="iperf3 -J TCP, host to gadget: the receiver's throughput",
        ),
        Metric(
            "usb.net.udp.throughput",
            unit="Mbit/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbNetwork(),
            seed=UDP,
            description="iperf3 -J UDP at the rate a first run at the link rate measured: the receiver's throughput",
        ),
        Metric(
            "usb.net.udp.jitter",
            unit="ms",
            direction=Direction.LOWER,
            reads="jitter",
            seed=UDP,
            description="the same UDP runs: jitter the receiver measured",
        ),
        Metric(
            "usb.net.udp.loss",
            unit="%",
            direction=Direction.LOWER,
            reads="loss",
            seed=UDP,
            description="the same UDP runs: datagrams lost",
            check_cv=False,
        ),
        Metric(
            "usb.net.udp.out_of_order",
            unit="count",
            direction=Direction.LOWER,
            reads="out_of_order",
            seed=UDP,
            description="the same UDP runs: datagrams that arrived out of order",
            check_cv=False,
        ),
    ),
    settings=(
        Setting("net.duration_s", int, 10, "seconds per iperf3 run", 1, 3600),
        Setting(
            "net.udp_start_mbps",
            float,
            0.0,
            "UDP rate of the first run, Mbit/s (0: the link's theoretical rate, the USB bulk bound)",
            0,
            100000,
        ),
        Setting("net.carrier_timeout_s", int, 20, "bound for the link's carrier to come up (NCM may never)", 1, 600),
    ),
)

FAMILIES = (NET,)
