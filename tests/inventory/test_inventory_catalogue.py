"""boards.yaml against the catalogue: metric names, band units, links with a ceiling, typed settings.

Each bad input is an InventoryError at load time naming the file, the line and the key.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, make_dataclass

import pytest

from hil.catalogue import CATALOGUE, Catalogue, Family, Setting, UnknownName
from hil.catalogue.usb_network import EthernetSettings
from hil.errors import InventoryError, LabError
from hil.inventory.loader import load_inventory
from hil.verdict.spec import Band, Direction

from .conftest import ScratchSettings

PAIR = """\
pairs:
  vpair:
    env: env.yaml
    roles:
      host: {target: vboard}
      device: {target: vboard}
    link: {type: usb, speed: high, udc: dummy_udc.0}
    settings:
      test.backing_mb: 64
    metrics:
      test.rate: {unit: MB/s, min: 8}
"""


def load(write_boards, catalogue, text: str):
    return load_inventory(write_boards(text), catalogue)


def problem(write_boards, catalogue, text: str) -> InventoryError:
    with pytest.raises(InventoryError) as caught:
        load(write_boards, catalogue, text)
    return caught.value


def line_of(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_a_mib_band_on_a_mb_metric_is_converted_into_mb(write_boards, catalogue):
    # Below the high-speed link's 53.25 MB/s: a floor above it is refused (test_band_rules.py).
    text = PAIR.replace("test.rate: {unit: MB/s, min: 8}", "test.rate: {unit: MiB/s, min: 40, max: 200}")
    loaded = load(write_boards, catalogue, text)
    spec = loaded.boards["vpair"].spec_for(loaded.inventory, "test.rate", {}, catalogue=catalogue)
    assert spec.unit == "MB/s"
    assert (spec.band.low, spec.band.high) == pytest.approx((41.94304, 209.7152))


def test_a_band_in_microseconds_on_a_millisecond_metric_is_converted(write_boards, catalogue):
    text = PAIR.replace("test.rate: {unit: MB/s, min: 8}", "test.latency: {unit: µs, max: 1500}")
    loaded = load(write_boards, catalogue, text)
    spec = loaded.boards["vpair"].spec_for(loaded.inventory, "test.latency", {}, catalogue=catalogue)
    assert (spec.unit, spec.direction, spec.band) == ("ms", Direction.LOWER, Band(None, 1.5))


def test_a_band_without_a_unit_is_in_the_metrics_own_unit(write_boards, catalogue):
    text = PAIR.replace("test.rate: {unit: MB/s, min: 8}", "test.fps: {min: 25}")
    loaded = load(write_boards, catalogue, text)
    spec = loaded.boards["vpair"].spec_for(loaded.inventory, "test.fps", {}, catalogue=catalogue)
    assert (spec.unit, spec.band) == ("fps", Band(25, None))


def test_a_band_in_an_incompatible_unit_is_an_error_at_its_unit_key(write_boards, catalogue):
    text = PAIR.replace("test.rate: {unit: MB/s, min: 8}", "test.rate:\n        unit: ms\n        min: 8")
    error = problem(write_boards, catalogue, text)
    assert error.key == f"line {line_of(text, 'unit: ms')}: pairs/vpair/metrics/test.rate/unit"
    assert "'ms' does not measure a data rate: test.rate is in MB/s" in error.problem


def test_a_misspelt_metric_is_an_error_suggesting_the_right_name(write_boards, catalogue):
    text = PAIR.replace("test.rate: {", "test.raet: {")
    error = problem(write_boards, catalogue, text)
    assert error.key == f"line {line_of(text, 'test.raet')}: pairs/vpair/metrics/test.raet"
    assert "unknown metric 'test.raet' (did you mean test.rate" in error.problem


def test_a_misspelt_metric_of_the_real_catalogue_is_named(write_boards):
    text = PAIR.replace("test.rate: {unit: MB/s, min: 8}", "usb.msc.raed: {min: 8}").replace(
        "      test.backing_mb: 64\n", "      msc.backing_mb: 64\n"
    )
    with pytest.raises(InventoryError, match=r"unknown metric 'usb.msc.raed' \(did you mean usb.msc.read"):
        load_inventory(write_boards(text))


def test_a_direction_in_boards_yaml_is_refused_because_the_catalogue_owns_it(write_boards, catalogue):
    text = PAIR.replace("{unit: MB/s, min: 8}", "{unit: MB/s, min: 8, direction: lower}")
    error = problem(write_boards, catalogue, text)
    assert "direction is the catalogue's" in error.problem


def test_an_informative_metric_needs_no_band_and_takes_none(write_boards, catalogue):
    text = PAIR.replace("test.rate: {unit: MB/s, min: 8}", "test.rate: {informative: true}")
    loaded = load(write_boards, catalogue, text)
    assert loaded.boards["vpair"].spec_for(loaded.inventory, "test.rate", {}, catalogue=catalogue).band is None
    error = problem(write_boards, catalogue, PAIR.replace("{unit: MB/s, min: 8}", "{min: 8, informative: true}"))
    assert "an informative metric is recorded, not gated: it takes no band" in error.problem


@pytest.mark.parametrize(
    ("link", "problem_text"),
    [
        ("{type: usb, speed: low}", "USB speed 'low' has no ceiling"),
        ("{type: usb, speed: super-plus}", "USB speed 'super-plus' has no ceiling"),
        ("{type: pcie, gen: 5, lanes: 4}", "PCIe generation 5 has no ceiling"),
        ("{type: pcie, gen: 3, lanes: 3}", "PCIe lane count 3 has no ceiling"),
        ("{type: pcie, gen: 3, lanes: 4, max_payload: 100}", "PCIe max payload size 100 has no ceiling"),
    ],
)
def test_a_link_the_ceiling_tables_do_not_know_is_refused_at_load_time(write_boards, catalogue, link, problem_text):
    text = PAIR.replace("{type: usb, speed: high, udc: dummy_udc.0}", link)
    if "pcie" in link:
        text = text.replace("host: {target: vboard}", "rc: {target: vboard}").replace(
            "device: {target: vboard}", "ep: {target: vboard}"
        )
    error = problem(write_boards, catalogue, text)
    assert error.key.startswith(f"line {line_of(text, 'link:')}: pairs/vpair/link/")
    assert problem_text in error.problem


def test_the_schema_takes_its_links_from_the_ceiling_tables():
    from hil.verdict import ceilings

    assert {s.value for s in ceilings.UsbSpeed} == {"full", "high", "super"}
    assert ceilings.PCIE_GENERATIONS == (1, 2, 3, 4)


SETTING_CASES = {
    "misspelt setting": ("test.backing_mb: 64", "test.bakcing_mb: 64", "unknown setting 'test.bakcing_mb'"),
    "wrong type": ("test.backing_mb: 64", "test.backing_mb: '64'", "valid integer"),
    "a bool where an int belongs": ("test.backing_mb: 64", "test.backing_mb: true", "valid integer"),
    "below its range": ("test.backing_mb: 64", "test.backing_mb: 0", "greater than or equal to 1"),
    "above its range": ("test.backing_mb: 64", "test.ratio: 1.5", "less than or equal to 1"),
    "not one of its choices": ("test.backing_mb: 64", "test.mode: medium", "'medium' is not one of fast, slow"),
    "an impossible combination": (
        "test.backing_mb: 64",
        "test.transfer_mb: 128",
        "test.transfer_mb is larger than test.backing_mb",
    ),
}


@pytest.mark.parametrize("case", list(SETTING_CASES))
def test_a_bad_setting_is_an_error_at_its_key(write_boards, catalogue, case):
    old, new, problem_text = SETTING_CASES[case]
    text = PAIR.replace(old, new)
    error = problem(write_boards, catalogue, text)
    key = new.split(":")[0]
    assert error.key == f"line {line_of(text, key)}: pairs/vpair/settings/{key}"
    assert problem_text in error.problem


def test_valid_settings_are_typed_and_defaults_fill_the_rest(write_boards, catalogue):
    text = PAIR.replace("test.backing_mb: 64", "test.backing_mb: 128\n      test.ratio: 1\n      test.enabled: false")
    board = load(write_boards, catalogue, text).boards["vpair"]
    settings = board.settings(ScratchSettings, catalogue)
    assert settings == ScratchSettings(backing_mb=128, transfer_mb=32, ratio=1.0, mode="fast", enabled=False)
    assert isinstance(settings.ratio, float)  # boards.yaml said 1
    assert board.setting("test.mode", catalogue) == "fast"  # by name too: the catalogue's default


def test_a_setting_a_case_needs_and_the_pair_leaves_empty_is_named_with_its_boards_yaml_spelling(write_boards):
    text = PAIR.replace("test.backing_mb: 64", "ethernet.peer_address: 192.168.1.1").replace(
        "test.rate: {unit: MB/s, min: 8}", "usb.ethernet.tcp.tx: {min: 8}"
    )
    board = load_inventory(write_boards(text)).boards["vpair"]
    with pytest.raises(LabError, match=r"vpair: set ethernet.serial, ethernet.board_address in its settings"):
        board.settings(EthernetSettings, required=("serial", "board_address", "peer_address"))
    assert board.settings(EthernetSettings, required=("peer_address",)).peer_address == "192.168.1.1"
    with pytest.raises(ValueError, match="no field"):
        board.settings(EthernetSettings, required=("peer",))


def test_a_view_no_family_reads_is_refused_by_name(write_boards, catalogue):
    board = load(write_boards, catalogue, PAIR).boards["vpair"]
    with pytest.raises(UnknownName, match="EthernetSettings is the settings view of no family"):
        board.settings(
            EthernetSettings,
            catalogue=Catalogue(tuple(f for f in catalogue.families if f.view is not EthernetSettings)),
        )


@dataclass(frozen=True)
class _OneInt:
    count: int


@pytest.mark.parametrize(
    ("view", "says"),
    [
        (None, "settings need a view"),
        (make_dataclass("Loose", [("count", int)]), "must be a frozen dataclass"),
        (make_dataclass("Other", [("number", int)], frozen=True), r"missing \['count'\], not settings \['number'\]"),
        (make_dataclass("Wrong", [("count", str)], frozen=True), "Wrong.count is <class 'str'>, its setting is int"),
        (_OneInt, None),
    ],
)
def test_a_familys_view_must_be_its_settings_field_for_field(view, says):
    def family():
        return Family("x", "x", (), settings=(Setting("x.count", int, 1, "a count"),), view=view)

    if says is None:
        assert family().read(lambda setting: setting.default) == _OneInt(1)
    else:
        with pytest.raises(ValueError, match=says):
            family()


def test_every_family_with_settings_reads_them_through_its_view():
    for family in CATALOGUE.families:
        if family.settings:
            assert CATALOGUE.family_viewed_by(family.view) is family


def test_the_msc_family_refuses_a_transfer_larger_than_its_backing_store(write_boards):
    text = textwrap.dedent(
        PAIR.replace("test.backing_mb: 64", "msc.backing_mb: 100\n      msc.transfer_mb: 128").replace(
            "test.rate: {unit: MB/s, min: 8}", "usb.msc.read: {min: 8}"
        )
    )
    with pytest.raises(InventoryError, match=r"msc.transfer_mb \(128\) is larger than msc.backing_mb \(100\)"):
        load_inventory(write_boards(text))


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ("disk.cp_file_mb: 4096", r"disk.cp_file_mb \(4096\) is larger than vfat's largest file \(4095 MiB\)"),
        ("disk.cp_dir: sdcard", r"disk.cp_dir \('sdcard'\) must be an absolute path on the board"),
    ],
)
def test_the_usb_disk_family_refuses_a_copy_it_cannot_make(write_boards, settings, says):
    text = PAIR.replace("test.backing_mb: 64", f"disk.serial: hil-vlab-bot\n      {settings}").replace(
        "test.rate: {unit: MB/s, min: 8}", "usb.disk.cp.write: {min: 8}"
    )
    with pytest.raises(InventoryError, match=says):
        load_inventory(write_boards(text))


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ("disk.serial: a\n      disk.together: b a", r"disk.together \('b a'\) names a disk twice, or disk.serial's"),
        ("disk.serial: a\n      disk.together: b c b", r"names a disk twice"),
        ("disk.together: b c", r"disk.together names further disks: set disk.serial too"),
    ],
)
def test_the_usb_disk_family_refuses_disks_together_that_are_not_several_disks(write_boards, settings, says):
    text = PAIR.replace("test.backing_mb: 64", settings).replace(
        "test.rate: {unit: MB/s, min: 8}", "usb.disk.together.read: {min: 8}"
    )
    with pytest.raises(InventoryError, match=says):
        load_inventory(write_boards(text))


def test_a_large_copy_file_is_fine_on_ext4(write_boards):
    text = PAIR.replace("test.backing_mb: 64", "disk.fs: ext4\n      disk.cp_file_mb: 8192").replace(
        "test.rate: {unit: MB/s, min: 8}", "usb.disk.cp.write: {min: 8}"
    )
    assert load_inventory(write_boards(text)).boards["vpair"].setting("disk.cp_file_mb") == 8192
