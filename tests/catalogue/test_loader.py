"""The catalogue's declarations are data (hil/catalogue/families.yaml): the loader builds them into the same
Metric, Setting and Family objects, and refuses a declaration it cannot build, naming the file, the family,
the entry and the key."""

from __future__ import annotations

import pytest

from hil.catalogue import CATALOGUE, CatalogueError, load
from hil.catalogue.ceilings import UsbBus, UsbFrames, UsbNetwork
from hil.catalogue.usb_device import MscSettings, _backing_dir_absolute
from hil.verdict.ceilings import Transfer
from hil.verdict.spec import Direction, Floor

FAMILY = """\
- name: usb.msc
  title: a family
  view: usb_device.MscSettings
  checks: [usb_device._backing_dir_absolute]
  metrics:
    - {name: usb.msc.read, unit: MB/s, direction: higher, reads: throughput, ceiling: UsbBus(transfer=bulk),
       seed: a seed, description: a rate}
  settings:
    - {name: msc.backing_mb, kind: int, default: 512, minimum: 1, maximum: 65536, help: backing store}
    - {name: msc.backing_dir, kind: str, default: /tmp, help: where}
    - {name: msc.transfer_mb, kind: int, default: 256, help: per sample}
    - {name: msc.fs, kind: str, default: vfat, choices: [vfat, ext4], help: a filesystem}
    - {name: msc.fs_transfer_mb, kind: int, default: 64, help: per file}
"""


def load_text(tmp_path, text: str):
    path = tmp_path / "families.yaml"
    path.write_text(text, encoding="utf-8")
    return load(path)


def test_a_family_is_built_from_its_declaration(tmp_path):
    (family,) = load_text(tmp_path, FAMILY).families
    assert (family.view, family.checks) == (MscSettings, (_backing_dir_absolute,))
    (metric,) = family.metrics
    assert (metric.direction, metric.ceiling, metric.check_cv) == (Direction.HIGHER, UsbBus(Transfer.BULK), True)
    assert family.settings[3].choices == ("vfat", "ext4") and family.settings[0].kind is int


def test_the_shipped_catalogue_names_its_rules_and_floors_as_the_code_did():
    assert CATALOGUE.metric("usb.uvc.fps").ceiling == UsbFrames(transfer_param="transfer")
    assert CATALOGUE.metric("usb.ethernet.tcp.tx").ceiling == UsbNetwork(phy_mbit_param="link_mbps")
    assert isinstance(CATALOGUE.metric("usb.resume.time").floor, Floor)
    assert CATALOGUE.setting("net.udp_start_mbps").default == 0.0 and CATALOGUE.metric("usb.uvc.fps").needs


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("reads: throughput,", "reads: throughput, colour: red,", "metric usb.msc.read: unknown key 'colour'"),
        ("reads: throughput, ", "", "metric usb.msc.read: missing reads"),
        ("direction: higher", "direction: up", "metric usb.msc.read: direction must be higher or lower"),
        ("UsbBus(transfer=bulk)", "UsbBuss", "metric usb.msc.read: ceiling: 'UsbBuss' is none of PcieBus, UsbBus"),
        ("UsbBus(transfer=bulk)", "UsbBus(transfer=warp)", "ceiling: 'UsbBus(transfer=warp)': 'warp' is not a"),
        ("UsbBus(transfer=bulk)", "UsbBus(speed=high)", "unexpected keyword argument 'speed'"),
        ("unit: MB/s", "unit: furlongs", "family usb.msc: metric usb.msc.read: "),
        ("name: usb.msc.read", "name: usb.hid.read", "family usb.msc: metric usb.hid.read does not belong"),
        ("view: usb_device.MscSettings", "view: usb_device.Msc", "view: no 'Msc' in hil/catalogue/usb_device.py"),
        ("_backing_dir_absolute]", "_nothing]", "family usb.msc: checks: no '_nothing' in hil/catalogue/usb_device"),
        ("default: 512", "default: lots", "setting msc.backing_mb: default 'lots' is not of kind int"),
        ("kind: int, default: 512", "kind: integer, default: 512", "setting msc.backing_mb: kind must be one of"),
        ("maximum: 65536", "maximum: many", "setting msc.backing_mb: maximum must be int or float, not 'many'"),
        ("help: where}", "help: where, choices: [1, 2]}", "setting msc.backing_dir: choices must be a list of names"),
        ("  title: a family\n", "", "families.yaml: family usb.msc: missing title"),
    ],
)
def test_a_declaration_that_cannot_be_built_is_refused_where_it_is(tmp_path, old, new, message):
    assert FAMILY.count(old) >= 1
    with pytest.raises(CatalogueError) as refused:
        load_text(tmp_path, FAMILY.replace(old, new, 1))
    assert message in str(refused.value)


def test_a_name_declared_twice_and_a_file_that_is_no_list_are_refused(tmp_path):
    with pytest.raises(CatalogueError, match=r"families\.yaml: usb\.msc\.read is defined twice"):
        load_text(tmp_path, FAMILY + FAMILY)
    with pytest.raises(CatalogueError, match=r"families\.yaml: must be a list of families"):
        load_text(tmp_path, "name: usb.msc\n")
    with pytest.raises(CatalogueError, match=r"families\.yaml: while parsing"):
        load_text(tmp_path, FAMILY.replace("}", "", 1))
