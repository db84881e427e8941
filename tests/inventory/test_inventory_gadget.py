"""boards.yaml's gadget backend (`link.gadget`, `link.android`) and a pair's `matrix`/`only`: loaded with
their defaults, and every mistake named with its line and key."""

from __future__ import annotations

import pytest

from hil.errors import InventoryError
from hil.inventory.loader import load_inventory

LINK = "    link: {type: usb, speed: high, udc: dummy_udc.0}\n"
ANDROID = "    link:\n      type: usb\n      speed: high\n      udc: dummy_udc.0\n      gadget: android\n"


def _load(write_boards, boards_yaml, old, new):
    assert boards_yaml.count(old) == 1
    return load_inventory(write_boards(boards_yaml.replace(old, new)))


def test_the_default_backend_is_configfs(write_boards, boards_yaml):
    link = load_inventory(write_boards(boards_yaml)).boards["vpair"].config.link
    assert link.gadget == "configfs" and link.android is None


def test_an_android_link_gets_aosp_s_functions_and_a_bounded_wait_by_default(write_boards, boards_yaml):
    link = _load(write_boards, boards_yaml, LINK, ANDROID).boards["vpair"].config.link
    assert link.gadget == "android"
    settings = link.android_gadget
    assert settings.functions == ["mtp", "rndis"]  # what AOSP's init.usb.configfs.rc itself switches
    assert (settings.keep_adb, settings.state_timeout_s, settings.mtp_storage) == (False, 10.0, "/sdcard")


def test_android_settings_are_read(write_boards, boards_yaml):
    text = ANDROID + "      android: {functions: [mass_storage, rndis], keep_adb: true, state_timeout_s: 5}\n"
    settings = _load(write_boards, boards_yaml, LINK, text).boards["vpair"].config.link.android_gadget
    assert (settings.functions, settings.keep_adb, settings.state_timeout_s) == (["mass_storage", "rndis"], True, 5)


@pytest.mark.parametrize(
    ("link", "key", "problem"),
    [
        (ANDROID.replace("      udc: dummy_udc.0\n", ""), "pairs/vpair/link", "gadget: android needs `udc`"),
        (
            LINK.replace("}", ", android: {keep_adb: true}}"),
            "pairs/vpair/link",
            "`android` settings apply to `gadget: android` only",
        ),
        (LINK.replace("}", ", gadget: adb}"), "pairs/vpair/link/gadget", "'configfs' or 'android'"),
        (ANDROID + "      android: {functions: [hid]}\n", "pairs/vpair/link/android/functions/0", "'mass_storage'"),
        (ANDROID + "      android: {functions: [mtp, mtp]}\n", "pairs/vpair/link/android/functions", "named twice"),
        (ANDROID + "      android: {state_timeout_s: 0}\n", "pairs/vpair/link/android/state_timeout_s", "greater"),
        (ANDROID + "      android: {keep_abd: true}\n", "pairs/vpair/link/android/keep_abd", "unknown key"),
    ],
)
def test_a_wrong_gadget_setting_names_its_key(write_boards, boards_yaml, link, key, problem):
    with pytest.raises(InventoryError) as caught:
        _load(write_boards, boards_yaml, LINK, link)
    assert key in caught.value.key and problem in caught.value.problem, str(caught.value)


@pytest.mark.parametrize(
    ("line", "key", "problem"),
    [
        ("    matrix: fast\n", "pairs/vpair/matrix", "'quick' or 'full'"),
        ("    only: {bs: []}\n", "pairs/vpair/only", "lists no value for bs"),
        ("    only: {b s: [1M]}\n", "pairs/vpair/only", "pattern"),
        ("    quick_only: {direction: []}\n", "pairs/vpair/quick_only", "`quick_only` lists no value for direction"),
    ],
)
def test_a_wrong_matrix_or_only_names_its_key(write_boards, boards_yaml, line, key, problem):
    with pytest.raises(InventoryError) as caught:
        _load(write_boards, boards_yaml, LINK, LINK + line)
    assert key in caught.value.key and problem in caught.value.problem, str(caught.value)


def test_matrix_and_only_are_read(write_boards, boards_yaml):
    lines = "    matrix: full\n    only: {bs: [1M]}\n    quick_only: {direction: [read]}\n"
    config = _load(write_boards, boards_yaml, LINK, LINK + lines).boards["vpair"]
    assert (config.config.matrix, config.config.only) == ("full", {"bs": ["1M"]})
    assert config.config.quick_only == {"direction": ["read"]}
