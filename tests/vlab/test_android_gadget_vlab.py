"""The android gadget backend (hil.lab.usb_gadget.android) on the real virtual board, whose image emulates Android's
property service and init's USB triggers (hil/vlab/android-usb.sh): the property round trip, the previous
sys.usb.config restored after a failure, no stale gadget when functions change between tests, and a state
that never comes is an ERROR within its bound.

These boot a real QEMU board (TCG) and talk to it over its serial console through labgrid.
"""

from __future__ import annotations

import shlex
import time

import pytest

from hil.errors import LabError
from hil.inventory.schema import AndroidGadgetConfig
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.usb_gadget import android, udc
from hil.lab.usb_gadget.gadget import CONFIGFS, MassStorage, Rndis
from hil.lab.usb_gadget.mtp import MtpResponder
from hil.lab.usb_host import usbhost

UDC = "dummy_udc.0"
CONFIG = AndroidGadgetConfig(functions=["mass_storage", "mtp", "rndis", "ncm", "ecm"], state_timeout_s=10)
# bInterfaceClass as the host sees it; RNDIS is a CDC communications interface (02) and CDC data (0a).
MASS_STORAGE, RNDIS, MTP = ["08"], {"02", "0a"}, ["06"]


@pytest.fixture
def board(vboard: Role) -> Role:
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    android.setprop(vboard, android.BEFORE, "")
    _switch(vboard, "none")
    return vboard


def _switch(role: Role, value: str) -> None:
    android.setprop(role, android.CONFIG, value)
    android.wait_for_state(role, value, timeout_s=10)


def _gadget(role: Role, *functions, config: AndroidGadgetConfig = CONFIG) -> android.AndroidGadget:
    def host_lets_go(serial: str) -> None:
        usbhost.wait_until_gone(role, serial, timeout_s=20)

    return android.AndroidGadget(role, UDC, list(functions), config, on_disconnect=host_lets_go)


def _interface_classes(role: Role, device: usbhost.UsbDevice) -> list[str]:
    return role.run(f'for i in {shlex.quote(device.sysfs)}/*:*; do cat "$i/bInterfaceClass"; done').split()


def _linked(role: Role) -> list[str]:
    return role.run(
        'for l in /config/usb_gadget/g1/configs/b.1/f*; do [ -L "$l" ] && readlink "$l"; done; true'
    ).split()


def test_setprop_getprop_round_trip_and_the_lun_gets_the_backing_file(board):
    android.setprop(board, "debug.hil.test", "a value")
    assert android.getprop(board, "debug.hil.test") == "a value"
    assert android.getprop(board, android.CONTROLLER) == UDC
    msc = MassStorage(size_mb=8)
    with _gadget(board, msc) as gadget:
        assert android.getprop(board, android.CONFIG) == android.getprop(board, android.STATE) == "mass_storage"
        assert android.getprop(board, android.BEFORE) == "none", "the value to restore is kept on the board"
        device = usbhost.wait_for_device(board, gadget.serial)
        assert gadget.serial == android.getprop(board, android.SERIAL)
        node = usbhost.wait_for_block_device(board, device)
        assert int(board.read(f"/sys/block/{node.removeprefix('/dev/')}/size")) == 8 * 2048
        assert board.read(f"{gadget.function_dir(msc)}/lun.0/file") == msc.backing_file
        assert gadget.function_dir(msc).endswith("/functions/mass_storage.0")
    assert android.getprop(board, android.STATE) == "none"
    assert android.getprop(board, android.BEFORE) == ""
    assert board.read("/config/usb_gadget/g1/UDC") == ""
    assert board.read("/config/usb_gadget/g1/functions/mass_storage.0/lun.0/file") == "", "the LUN is ejected"
    assert "hil-msc" not in board.run(shell.cmd("ls", "/tmp")), "the backing file is removed"


def test_the_previous_config_is_restored_after_a_failure_in_the_with_block(board):
    _switch(board, "rndis")  # the board's own configuration before the test
    with pytest.raises(RuntimeError, match="test body failed"), _gadget(board, MassStorage(size_mb=8)):
        assert android.getprop(board, android.STATE) == "mass_storage"
        raise RuntimeError("test body failed")
    assert android.getprop(board, android.CONFIG) == android.getprop(board, android.STATE) == "rndis"
    assert _linked(board) == ["../../../../usb_gadget/g1/functions/rndis.gs4"]
    assert board.read("/config/usb_gadget/g1/functions/mass_storage.0/lun.0/file") == ""
    assert android.getprop(board, android.BEFORE) == ""


def test_a_run_killed_mid_test_is_undone_by_the_next_one(board):
    # As a killed run leaves it: the board switched to hil's mass_storage, its own `rndis` recorded.
    android.setprop(board, android.BEFORE, "rndis")
    _switch(board, "mass_storage")
    with _gadget(board, Rndis()):
        pass
    assert android.getprop(board, android.CONFIG) == android.getprop(board, android.STATE) == "rndis"
    assert android.getprop(board, android.BEFORE) == ""


def test_switching_functions_between_tests_leaves_no_stale_gadget(board):
    with _gadget(board, MassStorage(size_mb=8)) as gadget:
        device = usbhost.wait_for_device(board, gadget.serial)
        assert _interface_classes(board, device) == MASS_STORAGE
        usbhost.wait_for_block_device(board, device)
    network = Rndis()
    with _gadget(board, network) as gadget:
        device = usbhost.wait_for_device(board, gadget.serial)
        assert _linked(board) == ["../../../../usb_gadget/g1/functions/rndis.gs4"]
        assert set(_interface_classes(board, device)) == RNDIS
        assert network.interface(board, gadget.function_dir(network)).startswith("usb")
        assert board.run(f"ls -d {device.sysfs}/*:*/host* 2>/dev/null; true") == "", "no mass storage left"
    responder = MtpResponder()
    with _gadget(board, responder) as gadget:
        device = usbhost.wait_for_device(board, gadget.serial)
        assert _interface_classes(board, device) == MTP
        assert gadget.function_dir(responder).endswith("/functions/ffs.mtp")
        assert responder.storage == "/sdcard" and "board's own" in responder.version(board)
    assert android.getprop(board, android.STATE) == "none"
    assert board.read("/config/usb_gadget/g1/UDC") == ""
    assert "ffs.mtp" not in board.run(shell.cmd("ls", "/config/usb_gadget/g1/functions"))
    assert board.run_status("pidof umtprd")[0] != 0, "the emulated MTP responder stopped with its function"
    assert "hil" not in board.run(shell.cmd("ls", CONFIGFS)).split(), "hil built no configfs gadget of its own"


def test_a_state_that_never_comes_is_an_error_naming_both_values_within_its_bound(board):
    # keep_adb asks for mass_storage,adb: the virtual board has no adbd, so its init never gets there.
    config = AndroidGadgetConfig(functions=["mass_storage"], keep_adb=True, state_timeout_s=3)
    started = time.monotonic()
    with (
        pytest.raises(LabError, match=r"sys.usb.state is 'none' .* after `setprop sys.usb.config mass_storage,adb`"),
        _gadget(board, MassStorage(size_mb=8), config=config),
    ):
        pass
    assert time.monotonic() - started < 60
    assert android.getprop(board, android.CONFIG) == android.getprop(board, android.STATE) == "none"
    assert android.getprop(board, android.BEFORE) == ""
