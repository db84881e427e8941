"""A cellular modem's data interface on the board, in loopback (seed 004), as the measurement needs it.

    with modem_link(pair) as link:
        iperf2.loopback(link.board, link.modem_address, ...)          # the board's server and client
        netpath.measure(link.path(), ...)                              # the copies crossed the interface

A real board (a link with no UDC): the lab's modem, put in loopback by hand as the seed describes; hil checks
that `modem.interface` holds `modem.board_address`, and measures.

The virtual lab: a stand-in, an ECM gadget whose end goes into a network namespace with the modem's address
and hil's reflector (hil/tools/udp_loopback), while the USB host's end, renamed to `modem.interface` (as the
pair's `tuning:` names it), keeps the board's address: the copies really cross the USB link.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field

from hil.catalogue.modem import ModemSettings
from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.network.netns import configure, iproute2, wait_for_both
from hil.lab.network.path import Counted, NetEnd, NetPath
from hil.lab.pair import BoardPair
from hil.lab.usb_gadget.gadget import NetworkFunction, network_function
from hil.lab.usb_gadget.on_link import GadgetOnLink, gadget_on
from hil.lab.usb_host import usbhost

log = logging.getLogger(__name__)

NETNS = "hil-modem"
PREFIX = 29  # seed 004's rmnet: 255.255.255.248
REFLECTOR_READY = r"udp_loopback: reflecting"
PORT = 5001  # iperf 2's, as the seed runs it


@dataclass(frozen=True)
class ModemLink:
    board: NetEnd  # the board's interface to the modem
    modem_address: str
    facts: dict[str, str] = field(default_factory=dict)

    def path(self) -> NetPath:
        """The copies the server received must show in the board's interface's rx bytes."""
        return NetPath("the modem's data interface", (Counted(self.board, "rx"),), recorded=self.board)


def _holds(end: NetEnd) -> None:
    """The board's interface exists and holds the board's address, else a LabError saying what it holds."""
    exitcode, output = end.role.run_status(shell.cmd(end.ip, "-4", "-o", "addr", "show", "dev", end.ifname), timeout=30)
    if exitcode != 0 or f" {end.address}/" not in output:
        raise LabError(
            f"{end.role.label}: {end.ifname} does not hold {end.address} (is the modem's data call up?): "
            f"{output.strip()[:300] or 'no such interface'}"
        )


@contextmanager
def modem_link(pair: BoardPair, *, carrier_timeout_s: float = 20.0) -> Iterator[ModemLink]:
    """The board's interface to a modem in loopback: the lab's modem, or the virtual lab's stand-in."""
    modem = pair.settings(
        ModemSettings,
        required=("interface", "board_address", "address"),
        example=" (seed 004: rmnet_usb0.1, .171, .172)",
    )
    if getattr(pair.link, "udc", None) is None:  # no gadget to play the modem with: the lab's own
        board = NetEnd(pair.host, modem.interface, modem.board_address)
        _holds(board)
        yield ModemLink(board, modem.address, {"modem": f"the lab's, at {modem.address} on {modem.interface}"})
        return
    with (
        gadget_on(pair, network_function("ecm")) as gadget,
        stand_in(
            gadget,
            interface=modem.interface,
            board_address=modem.board_address,
            modem_address=modem.address,
            replication=modem.replication,
            carrier_timeout_s=carrier_timeout_s,
        ) as link,
    ):
        yield link


@contextmanager
def stand_in(
    gadget: GadgetOnLink,
    *,
    interface: str,
    board_address: str,
    modem_address: str,
    replication: int,
    carrier_timeout_s: float = 20.0,
) -> Iterator[ModemLink]:
    """The virtual lab's modem on a bound ECM gadget of the board itself (see the module docstring)."""
    modem_role, board_role = gadget.pair.device, gadget.pair.host
    if modem_role.target is not board_role.target:
        raise LabError(f"{gadget.pair.name}: the stand-in modem runs on the board itself (device and host: one target)")
    functions = [f for f in gadget.gadget.functions if isinstance(f, NetworkFunction)]
    if len(functions) != 1:
        raise LabError(f"{gadget.pair.name}: the stand-in modem needs exactly one network function in the gadget")
    ip = iproute2(board_role)
    modem_if = functions[0].interface(modem_role, gadget.gadget.function_dir(functions[0]))
    board_if = usbhost.network_interface(board_role, gadget.usb_device.sysfs, timeout_s=30)
    modem = NetEnd(modem_role, modem_if, modem_address, NETNS, ip)
    board = NetEnd(board_role, interface, board_address, None, ip)
    with ExitStack() as stack:
        stack.callback(_tear_down, board_role, ip)
        steps = [
            shell.quiet(shell.cmd(ip, "netns", "del", NETNS)),  # a run that died left it
            shell.cmd(ip, "netns", "add", NETNS),
            shell.cmd(ip, "link", "set", modem_if, "netns", NETNS),
            shell.cmd(ip, "link", "set", board_if, "down"),
            shell.cmd(ip, "link", "set", board_if, "name", interface),
        ]
        board_role.run(shell.all_of(steps), timeout=60)
        configure(board, PREFIX)  # the board's end first: the gadget's connect notification must find it open
        configure(modem, PREFIX)
        carrier = wait_for_both(modem, board, timeout_s=carrier_timeout_s)
        reflector = stack.enter_context(
            modem_role.background(
                modem.wrap(shell.cmd("udp_loopback", modem_address, PORT, replication)),
                ready=REFLECTOR_READY,
                name="udp_loopback (the stand-in modem)",
            )
        )
        facts = {
            "modem": f"hil's stand-in: an ECM gadget ({modem_if} in namespace {NETNS}, {modem_address}) with "
            f"udp_loopback x{replication}; the board's end {board_if} renamed {interface}, {board_address}/{PREFIX}",
            "modem_carrier": carrier,
        }
        yield ModemLink(board, modem_address, facts)
        stack.close()
        if reflector.output:
            log.info("%s: %s", gadget.pair.name, reflector.output.strip().splitlines()[-1])


def _tear_down(role: Role, ip: str) -> None:
    with suppress(Exception):  # never hide the test's own error; the gadget's removal takes the interfaces
        role.run(shell.quiet(shell.cmd(ip, "netns", "del", NETNS)), timeout=30)
