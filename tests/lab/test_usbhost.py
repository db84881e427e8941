"""Which protocol a USB disk runs, read from its interfaces' `driver` links, on a sysfs-shaped tree built
here and read by a role on this PC (the commands are the ones the board runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.errors import LabError
from hil.lab.usb_host import usbhost


def _device(tmp_path: Path, *drivers: str) -> usbhost.UsbDevice:
    """A device directory with one interface per driver ("" = an interface no driver took)."""
    device = tmp_path / "devices" / "2-1"
    for number, driver in enumerate(drivers):
        interface = device / f"2-1:1.{number}"
        interface.mkdir(parents=True)
        if driver:
            target = tmp_path / "drivers" / driver
            target.mkdir(parents=True, exist_ok=True)
            (interface / "driver").symlink_to(target)
    return usbhost.UsbDevice(str(device), 5000.0, "46f4", "0001", "hil-vlab-bot")


@pytest.mark.parametrize("driver", ["uas", "usb-storage"])
def test_the_storage_driver_names_the_protocol(role, tmp_path, driver):
    device = _device(tmp_path, driver)
    assert usbhost.interface_drivers(role, device) == [driver]
    assert usbhost.storage_protocol(role, device, timeout_s=1) == driver


def test_the_storage_interface_is_found_among_others(role, tmp_path):
    device = _device(tmp_path, "usbhid", "", "uas")
    assert usbhost.interface_drivers(role, device) == ["usbhid", "uas"]
    assert usbhost.storage_protocol(role, device, timeout_s=1) == "uas"


def test_a_disk_no_storage_driver_took_is_an_error_naming_what_is_bound(role, tmp_path):
    device = _device(tmp_path, "usbhid", "")
    with pytest.raises(LabError, match=r"bound to no storage driver within 1 s \(interfaces: usbhid\)"):
        usbhost.storage_protocol(role, device, timeout_s=1)


def test_a_path_with_shell_characters_stays_one_path(role, tmp_path):
    device = _device(tmp_path / "a b; echo uas", "usb-storage")
    assert usbhost.storage_protocol(role, device, timeout_s=1) == "usb-storage"


# What wait_for_device's lookup prints on a board: the device's path, then its sysfs speed, idVendor and
# idProduct files (the virtual board's Bulk-Only disk, as the vlab tests enumerate it).
LOOKUP = "/sys/bus/usb/devices/2-1\n5000\n46f4\n0001\n"


def test_the_lookup_reads_path_speed_and_ids():
    device = usbhost._device(LOOKUP, "hil-vlab-bot", "vboard", LOOKUP)
    assert (device.sysfs, device.speed, device.vendor_id, device.product_id) == (
        "/sys/bus/usb/devices/2-1", "super", "46f4", "0001",
    )  # fmt: skip


@pytest.mark.parametrize(
    "printed",
    [
        LOOKUP.replace("5000", "unknown"),  # the kernel's word for a speed it does not know: was a ValueError
        LOOKUP.replace("5000\n", "[  12.345678] usb 2-1: reset SuperSpeed USB device\n"),  # a printk in its place
        LOOKUP.replace("46f4", "46g4"),
        LOOKUP + "extra\n",
    ],
    ids=["unknown speed", "kernel line instead of the speed", "bad vendor id", "more lines"],
)
def test_a_lookup_that_does_not_read_as_a_device_is_a_lab_error_with_the_output(printed):
    with pytest.raises(LabError, match="does not read as one") as raised:
        usbhost._device(printed, "hil-vlab-bot", "vboard", printed)
    assert repr(printed.strip()[:40])[1:-1] in str(raised.value)


def test_a_kernel_line_between_the_lookups_lines_is_not_read_as_one():
    from hil.lab.board.console import without_kernel_messages

    noisy = LOOKUP.replace("5000\n", "5000\n[  12.345678] usb 2-1: new SuperSpeed USB device number 2\n")
    assert usbhost._device(without_kernel_messages(noisy), "s", "vboard", noisy).speed_mbps == 5000.0
