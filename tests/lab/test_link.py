"""hil.lab.usb_gadget.udc._same: a module parameter as sysfs shows it (Y/N, 480) against boards.yaml's value."""

from __future__ import annotations

import pytest

from hil.lab.usb_gadget.udc import _same


@pytest.mark.parametrize(
    ("current", "wanted"),
    [
        ("Y\n", "true"),  # dummy_hcd's is_super_speed reads back as Y/N
        ("N\n", "false"),
        ("Y", "1"),
        ("y", "yes"),
        ("N", "0"),
        ("n", "off"),
        (" 1 ", "on"),
        ("Y", "True"),
        ("480\n", "480"),
        ("dwc3", "DWC3"),
        ("", ""),
    ],
)
def test_same_value(current, wanted):
    assert _same(current, wanted)


@pytest.mark.parametrize(
    ("current", "wanted"),
    [
        ("Y\n", "false"),
        ("N\n", "true"),
        ("N", "1"),
        ("Y", "0"),
        ("2", "1"),  # not a boolean: compared as text
        ("Y", "2"),
        ("480", "5000"),
        ("", "0"),  # an unreadable parameter (empty output) never counts as a match
    ],
)
def test_different_value(current, wanted):
    assert not _same(current, wanted)
