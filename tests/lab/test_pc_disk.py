"""The pair's disk on the lab PC (hil.lab.usb_host.pc_disk): what holds a disk before hil writes it raw, read from
lsblk's real listings (tests/data/lsblk), and a lab PC without the disk, asked for real on this PC."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from labgrid import Environment

from hil.catalogue.usb_host import DiskSettings
from hil.diagnose.storage import StorageDiagnosis
from hil.errors import LabError, Unavailable
from hil.inventory.loader import load_inventory
from hil.lab.pair import BoardPair
from hil.lab.usb_host import pc_disk

LSBLK = Path(__file__).parents[1] / "data" / "lsblk"


def _listing(name: str) -> str:
    return (LSBLK / f"{name}.txt").read_text()


def test_a_disk_with_partitions_nothing_uses_is_free():
    assert pc_disk.holding(_listing("unused"), "/dev/loop0") == ""


def test_a_mounted_partition_holds_the_disk():
    assert pc_disk.holding(_listing("mounted"), "/dev/loop0") == "loop0p1 on /mnt/hil-lsblk"


def test_a_filesystem_on_the_whole_disk_holds_it():
    assert pc_disk.holding(_listing("root-disk"), "/dev/vda") == "vda on /"


def test_a_volume_stacked_on_a_partition_holds_the_disk():
    # built from the captured listing (this PC's kernel has no device-mapper): a row lsblk prints for an LVM
    # volume on the second partition
    listing = _listing("unused") + "vg-data lvm \n"
    assert pc_disk.holding(listing, "/dev/loop0") == "vg-data (lvm)"


@pytest.mark.parametrize(
    ("listing", "node"),
    [
        ("", "/dev/sdb"),  # lsblk printed nothing
        (_listing("unused"), "/dev/sdb"),  # another disk's listing
        ("loop0p1 part \n", "/dev/loop0p1"),  # a partition, not the whole disk
        ("\n\n", "/dev/loop0"),
    ],
)
def test_a_listing_that_is_not_the_whole_disk_first_is_refused_never_read_as_free(listing, node):
    with pytest.raises(LabError, match=rf"lsblk {node} did not list that whole disk first"):
        pc_disk.holding(listing, node)


LAB = "targets:\n  lab-pc: {drivers: {LocalShellDriver: {}}}\nimports:\n  - hil.lab.board.local\n"
PAIR = """\
pairs:
  pc-pair:
    env: lab.yaml
    roles: {host: {target: lab-pc}, device: {target: lab-pc}, peer: {target: lab-pc}}
    link: {type: usb, speed: super, emulated: true}
    settings: {SETTINGS}
    metrics:
      usb.disk.pc.read: {unit: MB/s, informative: true}
"""


@pytest.fixture
def pair_with(tmp_path):
    """A pair on this PC, the lab PC its peer, with these disk settings."""
    envs = []

    def make(settings: str) -> BoardPair:
        (tmp_path / "lab.yaml").write_text(LAB)
        (tmp_path / "boards.yaml").write_text(PAIR.replace("{SETTINGS}", settings))
        board = load_inventory(tmp_path / "boards.yaml").boards["pc-pair"]
        envs.append(Environment(config_file=str(board.env_path)))
        return BoardPair.on(board, envs[-1])

    yield make
    for env in envs:
        env.cleanup()


def test_the_pc_measures_the_identical_disk_when_one_is_named_else_the_boards():
    assert DiskSettings("a", "any", 8, "vfat", 8, "/tmp", "", "").on_the_pc == "a"
    assert DiskSettings("a", "any", 8, "vfat", 8, "/tmp", "", "b").on_the_pc == "b"


def test_a_lab_pc_without_the_disk_skips_the_case_naming_what_it_asked_and_why(pair_with):
    # this PC has no USB disk with that serial (hil's tests run on PCs without one): asked for real
    pair = pair_with("{disk.serial: hil-no-such-disk, disk.pc_serial: hil-no-such-pc-disk}")
    with pytest.raises(Unavailable) as absent:
        pc_disk.find(pair)
    message = str(absent.value)
    assert message.startswith("pc-pair: the lab PC has no USB disk with serial hil-no-such-pc-disk: the pair's link is")
    assert "(pc-pair/peer" in message and "did not enumerate within 2 s" in message


def test_a_pair_naming_no_disk_is_an_error(pair_with):
    with pytest.raises(LabError, match=r"set disk.serial .* or disk.pc_serial"):
        pc_disk.find(pair_with("{}"))


def test_the_diagnosis_of_a_board_times_the_same_disk_on_the_lab_pc(role, tmp_path):
    # the "disk on the lab PC" is a file of this PC, read as the diagnosis reads the PC's disk: dd, O_DIRECT
    image = tmp_path / "disk.img"
    image.write_bytes(bytes(4 * 1024 * 1024))
    on_the_pc = lambda: pc_disk.PcDisk(role, str(image), {})  # noqa: E731
    rates: dict[str, float] = {}
    [line] = StorageDiagnosis(role, "/dev/sda", "read", "1M", 4, on_the_pc=on_the_pc)._same_disk_on_the_pc(rates)
    shown = re.escape(str(image))
    assert re.fullmatch(rf"the same disk on the lab PC \({shown}\) reads [0-9.]+ MB/s \(dd direct\)", line)
    assert rates["pc"] > 0


def test_the_diagnosis_of_a_board_whose_lab_pc_lacks_the_disk_says_so(role):
    def absent() -> pc_disk.PcDisk:
        raise Unavailable("lab-pc: no disk X")

    rates: dict[str, float] = {}
    lines = StorageDiagnosis(role, "/dev/sda", "read", "1M", 4, on_the_pc=absent)._same_disk_on_the_pc(rates)
    assert lines == ["not compared with the same disk on the lab PC: lab-pc: no disk X"] and rates == {}
