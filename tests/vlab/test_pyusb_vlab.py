"""hil's pyusb check (hil.lab.usb_host.pyusb_enumeration, what the lab PC's UsbEnumerationDriver runs) against real
kernel USB devices: gadgets on the virtual board's dummy_hcd, listed through pyusb by the board's own
libusb and Python.

The suite's virtual pairs keep their sysfs check (their host is the board's kernel, reached over a console
where no Python runs). Here Python is put on the board (tests/vlab/pyusb_overlay.py) only to run that code
where devices really enumerate: the speed code libusb reads at high and super speed, the bus path against
the kernel's, the serial number, a link slower than declared, a gadget bound while the check waits.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import usb.util
from labgrid import Environment

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.usb_gadget import udc
from hil.lab.usb_gadget.gadget import Gadget, MassStorage
from hil.lab.usb_host import usbhost
from hil.vlab import ENV_FILE, set_vlab_image_env

from .pyusb_overlay import GUEST_SCRIPT, SITE, image_with_python

SPEEDS = {  # speed -> dummy_hcd's is_super_speed, libusb's speed code (pyusb's constant), the fact's text
    "high": ("false", usb.util.SPEED_HIGH, "high speed (480 Mb/s)"),
    "super": ("true", usb.util.SPEED_SUPER, "super speed (5000 Mb/s)"),
}


@pytest.fixture(scope="module")
def board(vlab_image, tmp_path_factory):
    image = image_with_python(vlab_image, tmp_path_factory.mktemp("pyusb-vlab"))
    previous = os.environ.get("LG_HIL_VLAB_IMAGE")
    set_vlab_image_env(image)
    try:
        env = Environment(config_file=str(ENV_FILE))  # LG_* templates are resolved here, once
    finally:
        set_vlab_image_env(Path(previous) if previous else vlab_image.directory)
    target = env.get_target("vboard")
    yield Role("host", target, "pyusb-vlab")
    target.get_strategy().transition("off")
    env.cleanup()


@pytest.fixture
def vboard(board):
    board.ensure_ready()
    return board


def guest_command(*args: str) -> str:
    return f"PYTHONPATH={SITE} " + shell.cmd("python3.11", GUEST_SCRIPT, *args)


def guest(role: Role, *args: str) -> dict:
    output = role.run(guest_command(*args), timeout=120)
    return json.loads(output.strip().splitlines()[-1])


def _gadget(role: Role, speed: str) -> Gadget:
    udc.ensure_module(role, "dummy_hcd", {"is_super_speed": SPEEDS[speed][0]})
    return Gadget(role, "dummy_udc.0", [MassStorage(size_mb=8)])


@pytest.mark.parametrize("speed", list(SPEEDS))
def test_a_gadget_is_confirmed_at_its_speed_with_the_kernels_bus_path(vboard, speed):
    with _gadget(vboard, speed) as gadget:
        device = usbhost.wait_for_device(vboard, gadget.serial, timeout_s=30)
        found = guest(vboard, "confirm", "1d6b", "0104", gadget.serial, speed, "10")
    assert "error" not in found, found
    assert found["seen"]["speed_code"] == SPEEDS[speed][1]  # libusb's code, pyusb's constant
    assert found["seen"]["serial"] == gadget.serial
    assert found["facts"] == {
        "pyusb.device": "1d6b:0104",
        "pyusb.speed": SPEEDS[speed][2],
        "pyusb.bus_path": Path(device.sysfs).name,  # the kernel's name for it: libusb's bus and ports agree
    }


def test_a_gadget_slower_than_declared_is_an_error_naming_both_speeds(vboard):
    with _gadget(vboard, "high") as gadget:
        usbhost.wait_for_device(vboard, gadget.serial, timeout_s=30)
        found = guest(vboard, "confirm", "1d6b", "0104", gadget.serial, "super", "10")
    error = found["error"]
    assert f"pyusb sees 1d6b:0104 at high speed (480 Mb/s) on 1-1 (serial {gadget.serial})" in error
    assert f"expected 1d6b:0104 (serial {gadget.serial}) at super speed (5000 Mb/s)" in error
    assert found["seconds"] < 5  # found at once: a wrong speed does not wait for the bound


def test_no_such_device_is_an_error_after_the_bound_listing_what_libusb_sees(vboard):
    with _gadget(vboard, "high"):
        found = guest(vboard, "confirm", "1d6b", "0104", "hil-no-such-serial", "high", "2")
    assert "pyusb found no USB device 1d6b:0104 (serial hil-no-such-serial) at high speed" in found["error"]
    assert "within 2 s; libusb lists: " in found["error"]
    assert "1d6b:0104 at high speed (480 Mb/s) on 1-1" in found["error"]  # the gadget with another serial
    assert 2 <= found["seconds"] < 5


def test_a_gadget_bound_while_the_check_waits_is_found(vboard):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    gadget = _gadget(vboard, "high")
    waiting = vboard.background(
        guest_command("confirm", "1d6b", "0104", gadget.serial, "high", "60"), ready="started", name="pyusb"
    )
    shared = vboard.background(guest_command("shared-context", "10"), ready="started", name="pyusb-shared")
    with waiting, shared, gadget:
        waiting.wait(timeout_s=90)
        shared.wait(timeout_s=90)
    found = json.loads(waiting.output.strip().splitlines()[-1])
    assert found["seen"]["serial"] == gadget.serial, found
    # Why each listing opens a context of its own: pyusb's shared one, created before the bind, never lists
    # the gadget (libusb learns of new devices from udevd, which this board, like a container, lacks).
    listings = json.loads(shared.output.strip().splitlines()[-1])
    assert "1d6b:0104" not in listings["first"] and "1d6b:0104" not in listings["later"], listings
    assert "1d6b:0104" in listings["fresh"], listings
