"""pyusb's check of a gadget on the lab PC (hil.lab.usb_host.pyusb_enumeration, hil.lab.usb_host.usb_enumeration's
driver), run with this machine's real libusb through pyusb.

No USB device is faked here. A machine without a USB bus (no /sys/bus/usb: this one's kernel has none)
lists nothing, so the not-found path is libusb's own behaviour and its bound is measured. Finding a device,
libusb's speed code and the bus path are checked against devices that really enumerate, inside the virtual
board: tests/vlab/test_pyusb_vlab.py.
"""

from __future__ import annotations

import ctypes.util
import re
import subprocess
import time
from pathlib import Path

import pytest
import usb.util
from labgrid import Environment

from hil.errors import LabError
from hil.install import debian_packages
from hil.inventory.loader import load_inventory
from hil.lab.board.role import Role
from hil.lab.environments import Environments
from hil.lab.usb_gadget.gadget import Gadget, GadgetIdentity
from hil.lab.usb_gadget.on_link import enumerated
from hil.lab.usb_host import usb_enumeration, usbhost
from hil.lab.usb_host.pyusb_enumeration import LIBUSB_SPEEDS, Libusb, Seen, serial_of

NO_USB_BUS = not Path("/sys/bus/usb/devices").exists()

# The lab PC with pyusb, and one without it (tests/lab/conftest.py builds the environment).
LAB_ENV = """\
targets:
  lab-pc:
    drivers:
      LocalShellDriver: {}
      UsbEnumerationDriver: {}
  bare-pc:
    drivers:
      LocalShellDriver: {}
imports:
  - hil.lab.board.local
  - hil.lab.usb_host.usb_enumeration
"""


def test_libusb_loads_through_pyusb_and_names_both_versions():
    assert re.fullmatch(r"pyusb 1\.3\.1, libusb \d+\.\d+\.\d+", Libusb().version())


def test_a_device_libusb_never_lists_is_an_error_within_its_bound_naming_what_was_expected():
    started = time.monotonic()
    with pytest.raises(LabError) as raised:
        Libusb().confirm(
            vendor_id=0x1D6B, product_id=0x0104, serial="hil-nowhere", speed="super", timeout_s=1.0, where="lab-pc"
        )
    elapsed = time.monotonic() - started
    assert 1.0 <= elapsed < 2.0  # the bound, plus at most one listing and one poll interval
    message = str(raised.value)
    assert message.startswith(
        "lab-pc: pyusb found no USB device 1d6b:0104 (serial hil-nowhere) at super speed (5000 Mb/s) within 1 s;"
    )
    assert "libusb lists: " in message
    if NO_USB_BUS:
        assert message.endswith("libusb lists: none")


def test_pyusbs_speed_constants_map_to_the_speed_names_and_rates_the_sysfs_check_uses():
    assert LIBUSB_SPEEDS[usb.util.SPEED_LOW][0] == "low"
    assert LIBUSB_SPEEDS[usb.util.SPEED_FULL][0] == "full"
    assert LIBUSB_SPEEDS[usb.util.SPEED_HIGH][0] == "high"
    assert LIBUSB_SPEEDS[usb.util.SPEED_SUPER][0] == "super"
    assert usb.util.SPEED_UNKNOWN not in LIBUSB_SPEEDS
    for name, mbps in LIBUSB_SPEEDS.values():
        if name in usbhost.SPEED_MBPS:  # every name sysfs speaks of; libusb also knows 20 Gb/s
            assert usbhost.SPEED_MBPS[name] == mbps
    assert set(usbhost.SPEED_MBPS) <= {name for name, _ in LIBUSB_SPEEDS.values()}


@pytest.mark.parametrize(
    ("code", "ports", "bus_path", "speed"),
    [
        (usb.util.SPEED_HIGH, (1,), "3-1", "high speed (480 Mb/s)"),
        (usb.util.SPEED_SUPER, (2, 4), "3-2.4", "super speed (5000 Mb/s)"),
        (5, (1, 1, 3), "3-1.1.3", "super-plus speed (10000 Mb/s)"),  # LIBUSB_SPEED_SUPER_PLUS
        (usb.util.SPEED_UNKNOWN, (), "usb3", "unknown speed (libusb speed code 0)"),  # a root hub, no speed
    ],
)
def test_a_listed_device_gives_its_facts_under_the_kernels_name(code, ports, bus_path, speed):
    seen = Seen(vendor_id=0x1D6B, product_id=0x104, speed_code=code, bus=3, ports=ports)
    assert seen.facts() == {"pyusb.device": "1d6b:0104", "pyusb.speed": speed, "pyusb.bus_path": bus_path}


def test_the_serial_is_read_where_the_kernel_keeps_it_under_libusbs_bus_path(tmp_path):
    (tmp_path / "3-2.4").mkdir()
    (tmp_path / "3-2.4" / "serial").write_text("hil0123456789ab\n")
    seen = Seen(vendor_id=0x1D6B, product_id=0x104, speed_code=usb.util.SPEED_SUPER, bus=3, ports=(2, 4))
    assert serial_of(seen, tmp_path) == "hil0123456789ab"
    other = Seen(vendor_id=0x1D6B, product_id=0x104, speed_code=usb.util.SPEED_SUPER, bus=3, ports=(1,))
    assert serial_of(other, tmp_path) is None  # no serial: not the gadget


def test_an_unknown_speed_name_is_a_bug_in_the_caller():
    with pytest.raises(ValueError, match="unknown USB speed 'hgih'"):
        Libusb().confirm(vendor_id=1, product_id=2, serial="x", speed="hgih", timeout_s=0.1, where="lab-pc")


def test_the_driver_is_found_on_the_target_that_declares_it_and_nowhere_else(env):
    declared = Role("host", env.get_target("lab-pc"), "p")
    assert isinstance(usb_enumeration.of(declared), usb_enumeration.UsbEnumerationDriver)
    bare = Role("host", env.get_target("bare-pc"), "p")
    assert usb_enumeration.of(bare) is None
    assert usb_enumeration.confirm_gadget(bare, GadgetIdentity(), "high", timeout_s=0.1) == {}


def test_the_driver_confirms_through_libusb_and_names_the_role(env):
    role = Role("host", env.get_target("lab-pc"), "rk3399-evb-usb3")
    identity = GadgetIdentity(serial="hil-nowhere")
    with pytest.raises(LabError, match=r"^rk3399-evb-usb3/host \(lab-pc\): pyusb found no USB device 1d6b:0104 "):
        usb_enumeration.confirm_gadget(role, identity, "super", timeout_s=0.5)


def test_a_zero_poll_interval_is_refused_when_the_environment_builds_the_driver(tmp_path):
    path = tmp_path / "env.yaml"
    path.write_text(LAB_ENV.replace("UsbEnumerationDriver: {}", "UsbEnumerationDriver: {poll_s: 0}"))
    env = Environment(config_file=str(path))
    try:
        with pytest.raises(ValueError, match="poll_s"):
            env.get_target("lab-pc")
    finally:
        env.cleanup()


PAIR = """\
pairs:
  pc-gadget:
    env: lab.yaml
    roles: {{host: {{target: {host}}}, device: {{target: {host}}}}}
    link: {{type: usb, speed: high, udc: none.0}}
    metrics:
      usb.msc.read: {{unit: MB/s, min: 1}}
"""


@pytest.mark.parametrize(
    ("host", "error"),
    [
        # The PC declares the driver: pyusb answers first, after its bound.
        ("lab-pc", r"pyusb found no USB device 1d6b:0104 \(serial hil-nowhere\) at high speed \(480 Mb/s\) within 1 s"),
        # It does not: the sysfs check alone, as on the virtual lab.
        ("bare-pc", r"USB device with serial hil-nowhere did not enumerate within 1 s"),
    ],
)
def test_a_pair_checks_a_bound_gadget_through_pyusb_when_its_host_declares_the_driver(tmp_path, host, error):
    (tmp_path / "lab.yaml").write_text(LAB_ENV)
    (tmp_path / "boards.yaml").write_text(PAIR.format(host=host))
    board = load_inventory(tmp_path / "boards.yaml").boards["pc-gadget"]
    environments = Environments()
    try:
        pair = environments.open(board)
        # Never entered: nothing is configured on this PC; the pair looks for the gadget this identity names.
        gadget = Gadget(pair.device, "none.0", [], identity=GadgetIdentity(serial="hil-nowhere"))
        with pytest.raises(LabError, match=error):
            enumerated(pair, gadget, timeout_s=1)
        assert not any(key.startswith("pyusb.") for key in pair.facts.notes)
    finally:
        environments.cleanup()


class _Listed:
    """Glue only: stands in for libusb's answer so the pair's bookkeeping can be followed on a PC without USB.
    What libusb answers is checked for real in tests/vlab/test_pyusb_vlab.py."""

    def __init__(self, seen: Seen) -> None:
        self.seen = seen

    def confirm(self, **_: object) -> Seen:
        return self.seen

    def version(self) -> str:
        return "pyusb 1.3.1, libusb 1.0.26"


def test_what_pyusb_saw_goes_into_the_pairs_facts_before_the_sysfs_check(tmp_path):
    (tmp_path / "lab.yaml").write_text(LAB_ENV)
    (tmp_path / "boards.yaml").write_text(PAIR.format(host="lab-pc"))
    board = load_inventory(tmp_path / "boards.yaml").boards["pc-gadget"]
    environments = Environments()
    try:
        pair = environments.open(board)
        usb_enumeration.of(pair.host).libusb = _Listed(
            Seen(vendor_id=0x1D6B, product_id=0x104, speed_code=usb.util.SPEED_HIGH, bus=3, ports=(2,))
        )
        gadget = Gadget(pair.device, "none.0", [], identity=GadgetIdentity(serial="hil-nowhere"))
        with pytest.raises(LabError, match="did not enumerate within 1 s"):  # this PC's sysfs has no USB
            enumerated(pair, gadget, timeout_s=1)
        assert {key: value for key, value in pair.facts.notes.items() if key.startswith("pyusb.")} == {
            "pyusb.device": "1d6b:0104",
            "pyusb.speed": "high speed (480 Mb/s)",
            "pyusb.bus_path": "3-2",
            "pyusb.tool": "pyusb 1.3.1, libusb 1.0.26",
        }
    finally:
        environments.cleanup()


def test_setup_installs_the_debian_package_of_the_library_pyusb_loads():
    assert "libusb-1.0-0" in debian_packages("vlab")  # what `hil setup` and scripts/setup.sh install
    library = ctypes.util.find_library("usb-1.0")  # what pyusb's loader asks for
    owner = subprocess.run(["dpkg", "-S", f"*/{library}"], capture_output=True, text=True, check=True).stdout
    assert owner.startswith("libusb-1.0-0:"), owner
