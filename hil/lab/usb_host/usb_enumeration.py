"""A labgrid driver for the lab PC (declared on its target next to LocalShellDriver): pyusb confirms that a
gadget enumerated there, at no lower speed than boards.yaml's link (hil.lab.usb_gadget.on_link calls it).

It runs in pytest's own process, so only a target on the machine running pytest can have it; on the virtual
lab the sysfs check of hil.lab.usb_host.usbhost stands alone.
"""

from __future__ import annotations

import functools
from typing import ClassVar

import attr
from labgrid.driver.common import Driver
from labgrid.exceptions import NoDriverFoundError
from labgrid.factory import target_factory
from labgrid.step import step

from hil.lab.board.role import Role
from hil.lab.usb_gadget.gadget import GadgetIdentity
from hil.lab.usb_host.pyusb_enumeration import POLL_S, Libusb, Seen


@target_factory.reg_driver
@attr.s(eq=False)
class UsbEnumerationDriver(Driver):
    """pyusb's view of the USB devices of the machine running pytest; `poll_s` between two listings."""

    bindings: ClassVar[dict] = {}
    poll_s = attr.ib(default=POLL_S, converter=float, validator=attr.validators.gt(0))

    @functools.cached_property
    def libusb(self) -> Libusb:
        # Loaded on first use: a PC without libusb fails the test that needs it, not the environment.
        return Libusb()

    @Driver.check_active
    @step(args=["vendor_id", "product_id", "serial", "speed"], result=True)
    def confirm(
        self, *, vendor_id: int, product_id: int, serial: str, speed: str, timeout_s: float, where: str
    ) -> Seen:
        """The device as libusb lists it; a LabError when it is not there in time or came up slower."""
        return self.libusb.confirm(
            vendor_id=vendor_id,
            product_id=product_id,
            serial=serial,
            speed=speed,
            timeout_s=timeout_s,
            where=where,
            poll_s=self.poll_s,
        )

    def version(self) -> str:
        return self.libusb.version()


def of(role: Role) -> UsbEnumerationDriver | None:
    """The role's UsbEnumerationDriver, or None when its target has none (a board, the virtual lab)."""
    try:
        return role.target.get_driver(UsbEnumerationDriver)
    except NoDriverFoundError:
        return None


def confirm_gadget(role: Role, identity: GadgetIdentity, speed: str, *, timeout_s: float) -> dict[str, str]:
    """Facts of the gadget as pyusb sees it on the role's PC, or {} when the role has no such driver."""
    driver = of(role)
    if driver is None:
        return {}
    seen = driver.confirm(
        vendor_id=identity.vendor_id,
        product_id=identity.product_id,
        serial=identity.serial,
        speed=speed,
        timeout_s=timeout_s,
        where=role.label,
    )
    return {**seen.facts(), "pyusb.tool": driver.version()}
