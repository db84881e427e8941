"""The U-Boot command that boots a build over TFTP (hil.lab.board.tftpboot): run for real on the rehearsal
board by tests/bench/test_tftp_build.py; here what it must refuse to put on U-Boot's command line."""

from __future__ import annotations

import pytest

from hil.errors import LabError
from hil.lab.board.tftpboot import uboot_tftp_command


def test_kernel_initramfs_and_the_boards_device_tree():
    command = uboot_tftp_command({"kernel": "/Image", "initramfs": "/initrd.img"}, ["root=/dev/vda2", "hil.build=a"])
    assert command.split("; ") == [
        "pci enum",
        "setenv autoload no",
        "dhcp",
        "tftpboot ${kernel_addr_r} /Image",
        "tftpboot ${ramdisk_addr_r} /initrd.img",
        "setenv hil_initrd_size ${filesize}",
        "setenv bootargs root=/dev/vda2 hil.build=a",
        "booti ${kernel_addr_r} ${ramdisk_addr_r}:${hil_initrd_size} ${fdtcontroladdr}",
    ]


def test_a_builds_own_device_tree_and_no_initramfs():
    command = uboot_tftp_command({"kernel": "rk/Image", "dtb": "rk/rk3399-evb.dtb"}, ["hil.build=a"])
    assert "tftpboot ${fdt_addr_r} rk/rk3399-evb.dtb" in command
    assert command.endswith("booti ${kernel_addr_r} - ${fdt_addr_r}")


@pytest.mark.parametrize("word", ["a;reset", "a$b", "a b", "'a'", 'a"', "a\\b", "a#b", ""])
def test_what_u_boot_would_split_or_expand_is_refused(word):
    with pytest.raises(LabError, match="cannot go on U-Boot's command line"):
        uboot_tftp_command({"kernel": "/Image"}, ["hil.build=a", word])
    with pytest.raises(LabError, match="cannot go on U-Boot's command line"):
        uboot_tftp_command({"kernel": word}, ["hil.build=a"])
