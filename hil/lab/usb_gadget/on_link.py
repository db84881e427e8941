"""A gadget on a pair's USB link (`with gadget_on(pair, MassStorage(size_mb=64)) as gadget:`): bound on the device
role by the link's backend (boards.yaml's `gadget`: hil's own configfs gadget, or Android's switched through
sys.usb.config), enumerated by the host role at the link's speed, gone when the block ends."""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hil.errors import LabError
from hil.inventory.schema import UsbLink
from hil.lab.board import shell
from hil.lab.storage import filesystem, queue
from hil.lab.usb_gadget.android import AndroidGadget
from hil.lab.usb_gadget.gadget import Function, Gadget, GadgetBackend
from hil.lab.usb_host import usb_enumeration, usbhost

if TYPE_CHECKING:
    from hil.lab.pair import BoardPair


@dataclass
class GadgetOnLink:
    """A bound gadget as the host sees it: enumerated device, negotiated speed, its nodes."""

    pair: BoardPair
    gadget: GadgetBackend
    usb_device: usbhost.UsbDevice

    def block_device(self, *, timeout_s: float = 30.0) -> str:
        """The host's /dev node of the gadget's disk; its block queue goes into the pair's notes."""
        node = usbhost.wait_for_block_device(self.pair.host, self.usb_device, timeout_s=timeout_s)
        self.pair.note(block_queue=queue.read(self.pair.host, node).describe())
        return node

    def reattach_disk(self, mountpoint: str, fs: str, *, timeout_s: float = 30.0) -> float:
        """Seed 001 between a write and its read ("Un-mount the drive and detach-attach MUSB cable again"): the
        disk unmounted, the gadget off the bus and on again, the disk mounted again (the host's page cache holds
        nothing of it); the seconds this took. A busy disk is the error: not filesystem.unmount, whose lazy
        detach would let the disk leave the bus while the host still uses it."""
        host, started = self.pair.host, time.monotonic()
        host.run(shell.cmd("umount", mountpoint), timeout=120)
        self.gadget.reconnect(lambda: usbhost.wait_until_gone(host, self.gadget.serial, timeout_s=timeout_s))
        self.usb_device = enumerated(self.pair, self.gadget, timeout_s=timeout_s)
        filesystem.mount(host, self.block_device(timeout_s=timeout_s), fs, mountpoint)
        return time.monotonic() - started


@contextlib.contextmanager
def gadget_on(
    pair: BoardPair,
    *functions: Function,
    enumerate_timeout_s: float = 30.0,
    attach: Callable[[GadgetBackend], contextlib.AbstractContextManager[Any]] | None = None,
    backend: Callable[[str], GadgetBackend] | None = None,
) -> Iterator[GadgetOnLink]:
    """Run a gadget of `functions` on the pair's device role, wait for the host to enumerate it, check the speed.

    attach: what must run on the device before the host can see the gadget (a UVC frame source). backend:
    makes, for the link's UDC, a gadget that is a program of its own (the GadgetFS camera)."""
    link = pair.link
    if not isinstance(link, UsbLink) or link.udc is None:
        raise LabError(f"{pair.name}: gadget tests need a USB link with a `udc` in boards.yaml")
    with (
        backend(link.udc) if backend else link_backend(pair, link, list(functions), enumerate_timeout_s) as gadget,
        attach(gadget) if attach is not None else contextlib.nullcontext(),
    ):
        yield GadgetOnLink(pair, gadget, enumerated(pair, gadget, timeout_s=enumerate_timeout_s))


def enumerated(pair: BoardPair, gadget: GadgetBackend, *, timeout_s: float) -> usbhost.UsbDevice:
    """The bound gadget as the pair's host role sees it, at the link's speed: through pyusb where the host has a
    UsbEnumerationDriver, then through sysfs (the exact speed and the sysfs path the tests use)."""
    link = pair.link
    pair.note(gadget=gadget.describe())
    speed = link.speed
    if gadget.max_speed is not None and usbhost.SPEED_MBPS[gadget.max_speed] < usbhost.SPEED_MBPS[speed]:
        speed = gadget.max_speed  # the gadget cannot run faster than this on any link: recorded, not hidden
        pair.note(gadget_max_speed=f"{gadget.max_speed} ({gadget.describe()}) on a {link.speed}-speed link")
    pair.facts.note(usb_enumeration.confirm_gadget(pair.host, gadget.identity, speed, timeout_s=timeout_s))
    device = usbhost.wait_for_device(pair.host, gadget.serial, timeout_s=timeout_s)
    pair.record_link(f"{device.speed_mbps:g} Mb/s ({device.speed})")
    usbhost.require_speed(device, speed, f"{pair.name} ({pair.host.label})")
    return device


def link_backend(pair: BoardPair, link: UsbLink, functions: list[Function], timeout_s: float) -> GadgetBackend:
    """The link's gadget backend running `functions` on the device role (not yet bound)."""
    assert link.udc is not None
    if link.gadget == "android":
        # Android's gadget keeps its serial across configurations: the host must drop the old device
        # before the new one is looked for, or the test would find the one that is going away.
        host_lets_go = functools.partial(usbhost.wait_until_gone, pair.host, timeout_s=timeout_s)
        return AndroidGadget(pair.device, link.udc, functions, link.android_gadget, on_disconnect=host_lets_go)
    return Gadget(pair.device, link.udc, functions)
