"""USB network interfaces, measured with iperf3 as seed 000 "USB Ethernet 传输速率分析" (§2.2) does.

- `usb.net`: the board is a network gadget (ECM, NCM, RNDIS); iperf3 between the board's gadget interface
  and the host's ("USB Rndis 传输速率分析" for the figures). Tx is the gadget sending to the host.
- `usb.ethernet`: the board is the USB host of a USB Ethernet adapter (§2.2 itself); iperf3 between the
  board and the lab PC at the other end of the adapter's cable (the pair's `peer` role). Tx is the board
  sending to the PC.

The function (ecm, ncm, rndis) and, for UDP, the direction are test parameters.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hil.catalogue.ceilings import UsbNetwork
from hil.catalogue.cpu import CPU_SEED, cpu_busiest
from hil.catalogue.model import Family, Metric, Setting, lower, rate

IPERF = 'seed 000 "USB Ethernet 传输速率分析" (iperf), "USB Rndis 传输速率分析"'
UDP = 'seed 000 "USB Ethernet 传输速率分析": UDP at the link rate, then at the measured rate'
KNEE = "seed 004: the offered UDP rate raised step by step (-b 50M, 100M, 150M ...) until the loss passes its band"


def _tcp_metrics(prefix: str, seed: str, ceiling: UsbNetwork, tx: str, rx: str) -> tuple[Metric, ...]:
    """iperf3's TCP runs each way (`tx` and `rx` say which that is)."""
    return tuple(
        rate(
            f"{prefix}.tcp.{name}",
            seed,
            f"iperf3 -J TCP, {way}: the receiver's throughput",
            ceiling=ceiling,
            unit="Mbit/s",
        )
        for name, way in (("tx", tx), ("rx", rx))
    )


def _udp_metrics(prefix: str) -> tuple[Metric, ...]:
    """The UDP run's figures. Jitter is bounded from above, like loss: 0.01 ms in most runs and 0.3 ms in one
    is spread, not an unstable link (the virtual lab's runs spread 17-243% around medians of 0.01-0.17 ms on
    a quiet machine), so its band alone decides."""
    return (
        rate(
            f"{prefix}.udp.throughput",
            UDP,
            "iperf3 -J UDP at the rate a first run at the link rate measured: the receiver's throughput",
            ceiling=UsbNetwork(phy_mbit_param="link_mbps"),
            unit="Mbit/s",
            needs=(f"{prefix}.udp.loss",),
        ),
        *(
            lower(f"{prefix}.udp.{reads}", UDP, f"the same UDP runs: {what}", unit=unit, reads=reads, check_cv=False)
            for reads, unit, what in (
                ("jitter", "ms", "jitter the receiver measured"),
                ("loss", "%", "datagrams lost"),
                ("out_of_order", "count", "datagrams that arrived out of order"),
            )
        ),
    )


@dataclass(frozen=True)
class NetSettings:
    duration_s: int
    udp_start_mbps: float
    carrier_timeout_s: int
    udp_sweep_step_mbps: float
    udp_sweep_top_mbps: float


NET = Family(
    view=NetSettings,
    name="usb.net",
    title="USB network gadget (ECM, NCM, RNDIS)",
    metrics=(
        *_tcp_metrics("usb.net", IPERF, UsbNetwork(), "gadget to host", "host to gadget"),
        cpu_busiest("usb.net.tcp.tx", seed=CPU_SEED),
        cpu_busiest("usb.net.tcp.rx", seed=CPU_SEED),
        *_udp_metrics("usb.net"),
        rate(
            "usb.net.udp.knee",
            KNEE,
            "the highest offered UDP rate whose loss stays inside usb.net.udp.loss's band (one sweep "
            "of net.udp_sweep_step_mbps steps per sample)",
            unit="Mbit/s",
            reads="knee",
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
        Setting("net.udp_sweep_step_mbps", float, 50.0, "the knee's sweep: offered UDP rate step, Mbit/s", 0.1, 100000),
        Setting(
            "net.udp_sweep_top_mbps",
            float,
            0.0,
            "the knee's sweep: the highest rate offered, Mbit/s (0: the link's theoretical rate)",
            0,
            100000,
        ),
    ),
)


def _addresses_fit(values: Mapping[str, Any]) -> str | None:
    """The board's address is an interface address (with its prefix), the peer's lies in its network."""
    board, peer, listen = (values[f"ethernet.{name}"] for name in ("board_address", "peer_address", "peer_listen"))
    try:
        network = ipaddress.ip_interface(board).network if board else None
        if board and "/" not in board:
            return f"ethernet.board_address {board!r} needs its prefix length, e.g. 192.168.1.2/24"
        peer_ip = ipaddress.ip_address(peer) if peer else None
        if listen:
            ipaddress.ip_address(listen)
    except ValueError as exc:
        return f"ethernet address settings: {exc}"
    if network is not None and peer_ip is not None and peer_ip not in network:
        return f"ethernet.peer_address {peer} is outside ethernet.board_address's network {network}"
    return None


ETHERNET_SEED = 'seed 000 "USB Ethernet 传输速率分析" (iperf, board as client, PC as server)'


# The board is the USB host of an Ethernet adapter; its peer is the lab PC at the other end of the cable.
@dataclass(frozen=True)
class EthernetSettings:
    serial: str
    board_address: str
    peer_address: str
    peer_listen: str
    link_mbps: int
    duration_s: int
    udp_start_mbps: float
    carrier_timeout_s: int


ETHERNET = Family(
    view=EthernetSettings,
    name="usb.ethernet",
    title="USB Ethernet adapter on the board (the board is the USB host, the lab PC its peer)",
    metrics=(
        *_tcp_metrics(
            "usb.ethernet",
            ETHERNET_SEED,
            UsbNetwork(phy_mbit_param="link_mbps"),
            "board to PC through the adapter",
            "PC to board through the adapter",
        ),
        *_udp_metrics("usb.ethernet"),
    ),
    settings=(
        Setting("ethernet.serial", str, "", "USB serial number (sysfs `serial`) of the Ethernet adapter on the board"),
        Setting("ethernet.board_address", str, "", "address/prefix the board's adapter gets, e.g. 192.168.1.2/24"),
        Setting("ethernet.peer_address", str, "", "the lab PC's address as the board reaches it through the adapter"),
        Setting(
            "ethernet.peer_listen",
            str,
            "",
            "address the PC's iperf3 server binds to (empty: ethernet.peer_address; the virtual lab: 127.0.0.1)",
        ),
        Setting(
            "ethernet.link_mbps",
            int,
            0,
            "Ethernet rate the adapter must negotiate (sysfs `speed`), Mbit/s; also the ceiling (0: not checked)",
            0,
            100000,
        ),
        Setting("ethernet.duration_s", int, 10, "seconds per iperf3 run", 1, 3600),
        Setting(
            "ethernet.udp_start_mbps",
            float,
            0.0,
            "UDP rate of the first run, Mbit/s (0: the link's rate: the negotiated Ethernet rate, at most the USB "
            "bulk bound)",
            0,
            100000,
        ),
        Setting("ethernet.carrier_timeout_s", int, 20, "bound for the adapter's carrier to come up", 1, 600),
    ),
    checks=(_addresses_fit,),
)

FAMILIES = (NET, ETHERNET)
