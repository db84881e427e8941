"""A USB Ethernet adapter on the board (the board is its USB host) and the lab PC at the other end of its
cable (the pair's `peer` role), as seed 000 §2.2 sets them up: the PC serves iperf3, the board is the client.

    with usb_ethernet(pair) as nic, iperf3.server_on_free_port(nic.peer, bind=nic.peer.listen) as port:
        netpath.measure(nic.path(board_sends=True), lambda: iperf3.tcp(nic.board, nic.peer.address, port=port, ...))

Before anything is measured the adapter (by its USB serial) is checked at the pair's USB speed and Ethernet
rate (`ethernet.link_mbps`), addressed, its carrier up, the board's route to the PC through it, the PC
answering pings there. On the virtual lab it is QEMU's `usb-net`, its far end QEMU's user-mode network.
"""

from __future__ import annotations

import ipaddress
import re
import shlex
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hil.catalogue.usb_network import EthernetSettings
from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.network.netns import configure, wait_for_carrier
from hil.lab.network.path import Counted, NetEnd, NetPath
from hil.lab.usb_host import usbhost

if TYPE_CHECKING:
    from hil.lab.pair import BoardPair

ROUTE_DEVICE = re.compile(r"\bdev ([^\s]+)")


@dataclass(frozen=True)
class Peer:
    """The lab PC as the board sees it: the address the board connects to, and the one the PC's server binds
    (they differ behind a NAT, as on the virtual lab)."""

    role: Role
    address: str
    listen: str

    def wrap(self, command: str) -> str:
        return command

    def end(self) -> NetEnd:
        """The PC's interface the board's traffic arrives on: the one holding `listen`."""
        words = self.role.run(shell.cmd("ip", "-o", "addr", "show", "to", self.listen), timeout=30).split()
        if len(words) < 2:
            raise LabError(f"{self.role.label}: no interface holds {self.listen} (ethernet.peer_listen)")
        return NetEnd(self.role, words[1].split("@")[0], self.listen)


@dataclass
class UsbEthernetLink:
    board: NetEnd  # the adapter's interface on the board (the USB host)
    peer: Peer
    ethernet_mbps: int | None  # the rate the adapter negotiated (None: its driver reports none)
    params: dict[str, Any] = field(default_factory=dict)  # case parameters the ceiling reads (link_mbps)

    def path(self, *, board_sends: bool) -> NetPath:
        """Where one run's traffic must show: the adapter's tx (the board sends) or rx bytes."""
        return NetPath(
            "the USB Ethernet adapter", (Counted(self.board, "tx" if board_sends else "rx"),), recorded=self.board
        )


def interface_driver(role: Role, ifname: str) -> str:
    """The driver of the interface's device (cdc_ether, rndis_host, r8152, ax88179_178a...)."""
    output = role.run(f'basename "$(readlink {shlex.quote(f"/sys/class/net/{ifname}/device/driver")})"', timeout=30)
    driver = output.strip()
    if not driver or not re.fullmatch(r"[A-Za-z0-9_.-]+", driver):
        raise LabError(f"{role.label}: {ifname} has no driver bound (readlink gave {output!r})")
    return driver


def ethernet_speed(role: Role, ifname: str) -> int | None:
    """The negotiated Ethernet rate (sysfs `speed`, Mbit/s); None where the driver reports none."""
    exitcode, output = role.run_status(shell.cmd("cat", f"/sys/class/net/{ifname}/speed"), timeout=30)
    text = output.strip()
    if exitcode != 0 or not text.isascii() or not text.isdigit() or int(text) <= 0:
        return None
    return int(text)


def route_device(role: Role, address: str) -> str:
    """The interface the board's routing table sends traffic for `address` through."""
    output = role.run(shell.cmd("ip", "route", "get", address), timeout=30)
    found = ROUTE_DEVICE.search(output)
    if found is None:
        raise LabError(f"{role.label}: `ip route get {address}` names no device: {output.strip()!r}")
    return found.group(1)


def reach(role: Role, address: str, ifname: str, *, count: int = 3) -> None:
    """The peer answers pings through the adapter: a dead cable is a LabError here, not an iperf3 error later."""
    exitcode, output = role.run_status(
        shell.cmd("ping", "-c", count, "-W", 2, "-I", ifname, address), timeout=count * 3 + 30
    )
    if exitcode != 0:
        raise LabError(f"{role.label}: the peer {address} does not answer through {ifname}:\n{output.strip()}")


@contextmanager
def usb_ethernet(pair: BoardPair, *, enumerate_timeout_s: float = 30.0) -> Iterator[UsbEthernetLink]:
    """The board's adapter addressed, up and routed to the peer; addresses removed again on the way out."""
    host, peer_role = pair.host, pair.role("peer")
    ethernet = pair.settings(EthernetSettings, required=("serial", "board_address", "peer_address"))
    serial, cidr, peer_address = ethernet.serial, ethernet.board_address, ethernet.peer_address
    device = usbhost.wait_for_device(host, serial, timeout_s=enumerate_timeout_s)
    pair.record_link(f"{device.speed_mbps:g} Mb/s ({device.speed})")
    usbhost.require_speed(device, pair.link.speed, f"{pair.name} ({host.label}) Ethernet adapter {serial}")
    ifname = usbhost.network_interface(host, device.sysfs, timeout_s=enumerate_timeout_s)
    driver = interface_driver(host, ifname)
    pair.note(
        usb_ethernet=f"{device.vendor_id}:{device.product_id} serial {serial} at {device.sysfs}: {ifname}",
        usb_ethernet_driver=driver,
    )
    interface = ipaddress.ip_interface(cidr)  # the settings check's reading: a prefix length or a netmask
    board = NetEnd(host, ifname, str(interface.ip))
    try:
        configure(board, interface.network.prefixlen)
        wait_for_carrier(board, timeout_s=ethernet.carrier_timeout_s)
        speed = ethernet_speed(host, ifname)
        pair.note(ethernet_speed=f"{speed} Mbit/s" if speed else "not reported by the driver")
        wanted = ethernet.link_mbps
        if wanted and speed != wanted:
            raise LabError(
                f"{pair.name}: {ifname} ({driver}) negotiated "
                f"{f'{speed} Mbit/s' if speed else 'no reported rate'}, the pair specifies {wanted} Mbit/s "
                "(ethernet.link_mbps)"
            )
        through = route_device(host, peer_address)
        if through != ifname:
            raise LabError(
                f"{pair.name}: the board routes {peer_address} (ethernet.peer_address) through {through}, "
                f"not the USB Ethernet adapter's {ifname}: another interface is in that network"
            )
        pair.note(usb_ethernet_route=f"{cidr} on {ifname} -> peer {peer_address}")
        reach(host, peer_address, ifname)
        yield UsbEthernetLink(
            board=board,
            peer=Peer(peer_role, peer_address, ethernet.peer_listen or peer_address),
            ethernet_mbps=speed,
            params={"link_mbps": wanted} if wanted else {},
        )
    finally:
        with suppress(Exception):  # never hide the test's own exception
            down = [shell.cmd("ip", "addr", "flush", "dev", ifname), shell.cmd("ip", "link", "set", ifname, "down")]
            host.run(shell.quiet("; ".join(down)), timeout=30)
