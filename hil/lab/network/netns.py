"""The two ends of a USB network link (ECM, NCM, RNDIS gadget), addressed and up, traffic proven to cross it.

    with gadget_on(pair, Ecm()) as gadget, usb_network(gadget) as link:
        link.device.address, link.host.wrap(command)      # where to run what
        netpath.measure(link.path(device_sends=False), lambda: iperf3.tcp(link.host, ...))

On the virtual lab both ends are in one kernel, which would route the traffic over loopback: each end then
goes into a network namespace of its own, so the only way between them is the USB link.
"""

from __future__ import annotations

import logging
import shlex
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.network.path import Counted, NetEnd, NetPath
from hil.lab.usb_gadget.gadget import NetworkFunction
from hil.lab.usb_host import usbhost

if TYPE_CHECKING:
    from hil.lab.usb_gadget.on_link import GadgetOnLink

log = logging.getLogger(__name__)

DEVICE_ADDRESS = "10.77.0.1"  # a private /24 of its own: no route of the lab PC should cover it
HOST_ADDRESS = "10.77.0.2"
PREFIX = 24
NETNS = {"device": "hil-usbnet-dev", "host": "hil-usbnet-host"}


@dataclass(frozen=True)
class UsbNetLink:
    device: NetEnd
    host: NetEnd

    def receiver(self, *, device_sends: bool) -> NetEnd:
        """The end whose sockets receive the run's traffic."""
        return self.host if device_sends else self.device

    def path(self, *, device_sends: bool) -> NetPath:
        """Where one run's traffic must show: the sender's tx and the receiver's rx bytes."""
        sender, receiver = (self.device, self.host) if device_sends else (self.host, self.device)
        return NetPath("the USB link", (Counted(sender, "tx"), Counted(receiver, "rx")))


def wait_for_carrier(end: NetEnd, *, timeout_s: float) -> None:
    """Wait, with a bound, until the interface reports carrier; LabError if it never does."""
    carrier = shlex.quote(f"/sys/class/net/{end.ifname}/carrier")
    loop = shell.until(f'[ "$(cat {carrier} 2>/dev/null)" = 1 ]', timeout_s, on_timeout=f"cat {carrier}")
    exitcode, output = end.role.run_status(end.wrap(shell.cmd("sh", "-c", loop)), timeout=timeout_s + 30)
    if exitcode != 0:
        raise LabError(
            f"{end.role.label}: the USB network link never came up: {end.ifname} has no carrier after "
            f"{timeout_s:g} s (carrier: {output.strip() or 'unreadable'})"
        )


def wait_for_both(device: NetEnd, host: NetEnd, *, timeout_s: float) -> str:
    """Carrier on both ends. Seen on the virtual lab: the host's carrier stayed down after a fresh dummy_hcd load
    until the gadget's interface was re-opened (re-sending its connect notification), so one re-open is tried."""
    try:
        for end in (device, host):
            wait_for_carrier(end, timeout_s=timeout_s)
        return "up"
    except LabError as exc:
        first = str(exc)
        log.warning("%s; re-opening %s once", first, device.ifname)
        ip = [device.ip] + (["-n", device.netns] if device.netns else [])
        reopen = [shell.cmd(*ip, "link", "set", device.ifname, state) for state in ("down", "up")]
        device.role.run(shell.all_of(reopen), timeout=60)
    for end in (device, host):
        wait_for_carrier(end, timeout_s=timeout_s)
    return f"up only after {device.ifname} was re-opened ({first})"


def iproute2(role: Role) -> str:
    """iproute2's `ip` by full path: busybox's has no `netns`, and a busybox shell prefers its own applet."""
    exitcode, output = role.run_status('p=$(command -v ip) && "$p" -V && echo "$p"', timeout=30)
    lines = output.strip().splitlines()
    if exitcode != 0 or not lines or "iproute2" not in output or not lines[-1].startswith("/"):
        raise LabError(f"{role.label}: iproute2's `ip` is needed for network namespaces (found: {output.strip()!r})")
    return lines[-1].strip()


def configure(end: NetEnd, prefix: int = PREFIX) -> None:
    """The end's interface holds its address alone (`prefix` bits), and is up (so is its namespace's lo)."""
    ip = [end.ip] + (["-n", end.netns] if end.netns else [])
    steps = [
        shell.cmd(*ip, "addr", "flush", "dev", end.ifname),
        shell.cmd(*ip, "addr", "add", f"{end.address}/{prefix}", "dev", end.ifname),
        shell.cmd(*ip, "link", "set", end.ifname, "up"),
    ]
    if end.netns:
        steps.append(shell.cmd(*ip, "link", "set", "lo", "up"))
    end.role.run(shell.all_of(steps), timeout=60)


def _delete_namespaces(role: Role, ip: str) -> None:
    role.run(shell.quiet(" ; ".join(shell.cmd(ip, "netns", "del", name) for name in NETNS.values())), timeout=60)


@contextmanager
def usb_network(
    gadget: GadgetOnLink, *, carrier_timeout_s: float = 20.0, timeout_s: float = 30.0
) -> Iterator[UsbNetLink]:
    """Address both ends of a bound network gadget, bring them up, wait for carrier on both."""
    functions = [f for f in gadget.gadget.functions if isinstance(f, NetworkFunction)]
    if len(functions) != 1:
        raise LabError(f"{gadget.pair.name}: usb_network needs exactly one network function in the gadget")
    device_role, host_role = gadget.pair.device, gadget.pair.host
    device_if = functions[0].interface(device_role, gadget.gadget.function_dir(functions[0]))
    host_if = usbhost.network_interface(host_role, gadget.usb_device.sysfs, timeout_s=timeout_s)
    # One kernel for both ends (the virtual lab): namespaces, or the kernel would short-cut over loopback.
    shared = device_role.target is host_role.target
    ip = iproute2(device_role) if shared else "ip"
    device = NetEnd(device_role, device_if, DEVICE_ADDRESS, NETNS["device"] if shared else None, ip)
    host = NetEnd(host_role, host_if, HOST_ADDRESS, NETNS["host"] if shared else None, ip)
    try:
        if shared:
            _delete_namespaces(device_role, ip)  # leftovers of a run that died
            for end in (device, host):
                move = shell.cmd(ip, "link", "set", end.ifname, "netns", end.netns)
                end.role.run(shell.all_of([shell.cmd(ip, "netns", "add", end.netns), move]), timeout=60)
        # The host's end first: the gadget announces its connection when its interface opens (f_ecm/f_ncm's
        # notification), and a host end that opens later may never hear it (its carrier stays down).
        for end in (host, device):
            configure(end)
        gadget.pair.note(
            usb_net_carrier=wait_for_both(device, host, timeout_s=carrier_timeout_s),
            usb_net=f"device {device_if} {DEVICE_ADDRESS}, host {host_if} {HOST_ADDRESS}",
        )
        yield UsbNetLink(device, host)
    finally:
        with suppress(Exception):  # never hide the test's own exception; the gadget's removal follows
            if shared:
                _delete_namespaces(device_role, ip)
            else:
                for end in (device, host):
                    end.role.run(shell.quiet(shell.cmd("ip", "addr", "flush", "dev", end.ifname)), timeout=30)
