"""A cellular modem's data interface in loopback, measured as seed 004 ("Android Loopback 网速测试") does.

The modem is put in loopback (Quectel: loopback_config.txt with REP_FACTOR, written once with QPST; the
virtual lab: hil's stand-in, hil/tools/udp_loopback, behind a USB network gadget). On the board, iperf 2
sends UDP to the modem's address at a chosen rate (`-u -b 50M`, also `-P 10`), the modem sends every
datagram back REP_FACTOR times, and the board's own iperf 2 server (`-u -s`) reads what came back: the
server's rate, jitter and loss are the figures, and `mpstat -P ALL` shows the core that stops the rate (a
core at its irq/softirq limit). The seed's tuning (netdev_max_backlog, RPS masks on the interface's rx
queues, every core online at the performance governor) is the pair's `tuning:` block.

The number of parallel streams is a test parameter (`streams`: 1, and the seed's 10 in the full suite).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hil.catalogue.ceilings import UsbNetwork
from hil.catalogue.model import Family, Setting, lower, rate

SEED = 'seed 004 "iperf2 回环测试" (server side: iperf -u -s -i 1; client: iperf -u -c MODEM -b 50M [-P 10])'


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


LOOPBACK = Family(
    view=ModemSettings,
    name="modem.loopback",
    title="Cellular modem data interface in loopback (rmnet over USB), UDP from the board reflected back to it",
    metrics=(
        # The reflected copies cross the modem's USB link towards the board.
        rate(
            "modem.loopback.throughput",
            SEED,
            "the copies the modem sent back, as the board's iperf 2 server received them, streams summed",
            ceiling=UsbNetwork(),
            unit="Mbit/s",
            needs=("modem.loopback.loss",),
        ),
        *(
            lower(f"modem.loopback.{reads}", SEED, f"the same runs: {what}", unit=unit, reads=reads, check_cv=False)
            for reads, unit, what in (
                ("jitter", "ms", "the server's jitter, the worst stream's"),
                ("loss", "%", "datagrams of which no copy came back"),
            )
        ),
        rate(
            "modem.loopback.out_of_order",
            SEED,
            "the same runs: datagrams the server counted out of order, per datagram sent: each copy after "
            "the first is one (modem.replication - 1 when every copy came back; the seed's 41251 a second)",
            unit="count",
            reads="out_of_order_per_datagram",
            check_cv=False,
        ),
        rate(
            "modem.loopback.knee",
            f"{SEED}: -b 50M, then 100M, 150M",
            "the highest rate a stream offered (modem.sweep_step_mbps, twice that, ... up to "
            "modem.sweep_top_mbps) whose loss stayed inside modem.loopback.loss's band; 0: the first step lost more",
            unit="Mbit/s",
            reads="knee",
            check_cv=False,
        ),
        lower(
            "modem.loopback.cpu_busiest",
            f"{SEED}; mpstat -P ALL 2",
            "the same runs: the board's busiest core, % busy (not idle, not iowait): where the rate stops",
            unit="%",
            reads="cpu_busiest",
            check_cv=False,
        ),
    ),
    settings=(
        Setting("modem.address", str, "", "the modem's address on its data interface (seed 004: 192.168.48.172)"),
        Setting("modem.board_address", str, "", "the board's address on that interface (seed 004: 192.168.48.171)"),
        Setting("modem.interface", str, "", "the board's interface to the modem (seed 004: rmnet_usb0.1)"),
        Setting("modem.replication", int, 14, "copies the modem sends back of each datagram (REP_FACTOR)", 1, 1000),
        Setting("modem.rate_mbps", float, 50.0, "UDP rate each client stream sends, Mbit/s (iperf -b)", 0.01, 10000),
        Setting("modem.duration_s", int, 10, "seconds per iperf 2 run (seed 004: 666)", 1, 3600),
        Setting(
            "modem.sweep_step_mbps",
            float,
            50.0,
            "the knee's first offered rate and step, Mbit/s per stream",
            0.01,
            10000,
        ),
        Setting(
            "modem.sweep_top_mbps", float, 150.0, "the knee's highest offered rate, Mbit/s per stream", 0.01, 10000
        ),
    ),
    checks=(_addresses_fit,),
)

FAMILIES = (LOOPBACK,)
