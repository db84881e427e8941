"""The HID gadget on the virtual board: what a failed or killed HID test leaves behind does not break the next.

Boots the real QEMU board (TCG); the gadget and its host side are dummy_hcd's two halves in one kernel.
"""

from __future__ import annotations

import pytest

from hil.lab.board import shell
from hil.lab.usb_gadget import hid as hid_link
from hil.lab.usb_gadget import udc
from hil.lab.usb_gadget.gadget import CONFIGFS, Gadget, Hid
from hil.lab.usb_host import usbhost
from hil.measure import hid

UDC = "dummy_udc.0"


@pytest.fixture(autouse=True)
def _programs(vboard_with_programs):
    """hil's programs these tests run, deployed on the board first."""


def _ends(vboard, gadget, function):
    device = usbhost.wait_for_device(vboard, gadget.serial)
    return hid_link.ends(vboard, gadget.path, function, vboard, device)


def test_a_hid_gadget_left_mid_transfer_is_replaced_and_the_next_run_measures(vboard):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    function = Hid(report_length=512)
    leftover = Gadget(vboard, UDC, [function])
    leftover.create()
    leftover.bind()
    ends = _ends(vboard, leftover, function)
    # As if pytest had been killed mid-sample: a reader and a writer still hold both device nodes open.
    for node in (ends.hidraw, ends.hidg):
        vboard.run(shell.cmd("hid_throughput", "read", node, 512, 1000000, 600) + " >/dev/null 2>&1 &")
    with Gadget(vboard, UDC, [Hid(report_length=1024)]) as fresh:
        fresh_ends = _ends(vboard, fresh, fresh.functions[0])
        assert {ep.max_packet for ep in fresh_ends.endpoints} == {1024}
        for direction in hid.DIRECTIONS:
            sample = hid.transfer(fresh_ends, direction, report_bytes=1024, count=100, timeout_s=60)
            assert sample.values["throughput"].value > 0
    vboard.run("kill $(pidof hid_throughput) 2>/dev/null; true")
    assert "hil" not in vboard.run(shell.cmd("ls", CONFIGFS), check=False).split()


def test_the_enumerated_endpoints_are_f_hid_s_one_packet_per_report(vboard):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    function = Hid(report_length=512)
    with pytest.raises(RuntimeError, match="test body failed"), Gadget(vboard, UDC, [function]) as gadget:
        ends = _ends(vboard, gadget, function)
        assert sorted((ep.direction, ep.max_packet, ep.interval) for ep in ends.endpoints) == [
            ("in", 512, "1ms"),
            ("out", 512, "1ms"),
        ]
        raise RuntimeError("test body failed")
    assert "hil" not in vboard.run(shell.cmd("ls", CONFIGFS), check=False).split()
