"""The modem.loopback family's settings view and cross-check (families.yaml)."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def _addresses_fit(values: Mapping[str, Any]) -> str | None:
    for name in ("modem.address", "modem.board_address"):
        if values[name]:
            try:
                ipaddress.IPv4Address(values[name])
            except ValueError as exc:
                return f"{name}: {exc} (iperf 2's loopback runs over IPv4, as the seed's rmnet address does)"
    return None


@dataclass(frozen=True)
class ModemSettings:
    address: str
    board_address: str
    interface: str
    replication: int
    rate_mbps: float
    duration_s: int
    sweep_step_mbps: float
    sweep_top_mbps: float
