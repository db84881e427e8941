"""The USB network families' settings views and cross-checks (usb.net and usb.ethernet of families.yaml)."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NetSettings:
    duration_s: int
    udp_start_mbps: float
    carrier_timeout_s: int
    udp_sweep_step_mbps: float
    udp_sweep_top_mbps: float


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
