"""hil.lab.board.flashboot: a build laid out in a boot flash on erase blocks, U-Boot's command that copies it
back and boots it, and what is refused before flashrom runs (the end-to-end write is tests/build/test_provision
with the real flashrom, the boot tests/bench/test_flash_build on the rehearsal board)."""

from __future__ import annotations

from pathlib import Path

import attr
import pytest

from hil.build.manifest import load_build
from hil.errors import LabError
from hil.lab.board.flashboot import UBootFlashBootDriver, _valid_read_command, flash_image, layout, uboot_flash_command

FIELD = attr.fields(UBootFlashBootDriver).read_command


def build(tmp_path: Path, **sizes: int):
    for kind, size in sizes.items():
        (tmp_path / kind).write_bytes(kind[0].encode() * size)
    images = ", ".join(f"{kind}: {kind}" for kind in sizes)
    (tmp_path / "build.yaml").write_text(f"name: rc1\nimages: {{{images}}}\n")
    return load_build(tmp_path / "build.yaml")


def test_images_start_on_erase_blocks_kernel_first_and_u_boot_reads_whole_blocks(tmp_path):
    placed = layout(build(tmp_path, dtb=1000, initramfs=70000, kernel=65536), 1 << 20)
    assert [(p.kind, p.offset, p.size) for p in placed] == [
        ("kernel", 0, 65536),
        ("initramfs", 0x10000, 70000),
        ("dtb", 0x30000, 1000),  # 70000 B take two 64 KiB blocks
    ]
    command = uboot_flash_command(placed, "virtio read {addr} {block} {blocks}", ["hil.build=rc1"])
    assert command == (
        "virtio read ${kernel_addr_r} 0x0 0x80; virtio read ${ramdisk_addr_r} 0x80 0x89; "
        "virtio read ${fdt_addr_r} 0x180 0x2; setenv bootargs hil.build=rc1; "
        "booti ${kernel_addr_r} ${ramdisk_addr_r}:0x11170 ${fdt_addr_r}"
    )
    sf = uboot_flash_command(placed[:1], "sf probe; sf read {addr} {offset} {size}", ["hil.build=rc1"])
    assert sf.startswith("sf probe; sf read ${kernel_addr_r} 0x0 0x10000; setenv bootargs hil.build=rc1; booti ")
    assert sf.endswith(" - ${fdtcontroladdr}")


def test_the_flash_image_holds_each_image_at_its_offset_and_the_rest_erased(tmp_path):
    placed = layout(build(tmp_path, kernel=3, initramfs=2), 0x30000)
    flash_image(placed, 0x30000, tmp_path / "flash.bin")
    data = (tmp_path / "flash.bin").read_bytes()
    assert len(data) == 0x30000
    assert data[:3] == b"kkk" and data[0x10000:0x10002] == b"ii"
    assert data.count(0xFF) == 0x30000 - 5


def test_a_build_larger_than_the_flash_is_refused_naming_the_sizes(tmp_path):
    with pytest.raises(
        LabError, match=r"does not fit the boot flash: 131072 B laid out \(kernel 65537 B\) in a flash of 65536 B"
    ):
        layout(build(tmp_path, kernel=65537), 65536)


@pytest.mark.parametrize(
    ("template", "why"),
    [("sf read {addr} {start}", "KeyError"), ("sf read {addr", "ValueError"), ("sf read 0x0 {offset}", "never says")],
)
def test_a_read_command_that_is_not_a_template_of_the_known_fields_is_refused(template, why):
    with pytest.raises(ValueError, match=why):
        _valid_read_command(None, FIELD, template)


def test_a_word_u_boot_would_split_is_refused(tmp_path):
    placed = layout(build(tmp_path, kernel=10), 1 << 20)
    with pytest.raises(LabError, match="cannot go on U-Boot's command line"):
        uboot_flash_command(placed, "sf read {addr} {offset} {size}", ["console=ttyS2;reset"])
