"""Put a build on a U-Boot board by writing it into the board's boot flash, the way a board without a network
(or a lab without a TFTP server) gets a kernel under test: labgrid's FlashromDriver writes the flash through
the lab's programmer while the board is off, and U-Boot copies the images from the flash on every boot
(examples/rehearsal-env.yaml, target rboard-serial). `boot_build` switches the board off, lays the images out
on erase-block boundaries in an image of the chip's size, has flashrom write it, and replaces U-Boot's boot
command with one that copies each image to its load address (`read_command`: {addr}, and the image's place as
{offset}/{size} in bytes or {block}/{blocks} in 512-byte blocks, hexadecimal) and `booti`s them. A build that
does not fit the flash touches nothing.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import attr
from labgrid.driver.common import Driver
from labgrid.factory import target_factory
from labgrid.step import step

from hil.build.manifest import Build
from hil.errors import LabError
from hil.lab.board import uboot
from hil.lab.board.provision import BootBuildProtocol

ERASE_BLOCK = 64 * 1024  # a SPI NOR's usual erase block: every image starts on one
SECTOR = 512  # a block device's block (U-Boot's `virtio read`/`mmc read` count in them)
LOAD_ADDRESS = {"kernel": "${kernel_addr_r}", "initramfs": "${ramdisk_addr_r}", "dtb": "${fdt_addr_r}"}
_TEMPLATE_FIELDS = {"addr": "${kernel_addr_r}", "offset": "0x0", "size": "0x1", "block": "0x0", "blocks": "0x1"}


def _valid_read_command(instance: object, attribute: attr.Attribute, value: str) -> None:
    try:
        value.format(**_TEMPLATE_FIELDS)
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(
            f"UBootFlashBootDriver: read_command {value!r} is not a template of {{addr}}, {{offset}}, {{size}}, "
            f"{{block}} and {{blocks}} ({type(exc).__name__}: {exc})"
        ) from exc
    if "{addr}" not in value:
        raise ValueError(f"UBootFlashBootDriver: read_command {value!r} never says where to copy to ({{addr}})")


@dataclass(frozen=True)
class Placed:
    """One image in the flash: where it starts and how long it is, in bytes."""

    kind: str
    path: Path
    offset: int
    size: int

    def read(self, template: str) -> str:
        """U-Boot's command that copies this image to its load address."""
        return template.format(
            addr=LOAD_ADDRESS[self.kind],
            offset=hex(self.offset),
            size=hex(self.size),
            block=hex(self.offset // SECTOR),
            blocks=hex(-(-self.size // SECTOR)),
        )


def layout(build: Build, flash_size: int) -> list[Placed]:
    """The build's images in the flash, kernel first, each on an erase block; LabError if they do not fit."""
    placed, at = [], 0
    for kind in uboot.BOOT_IMAGES:
        if kind not in build.images:
            continue
        image = build.images[kind]
        placed.append(Placed(kind, image.path, at, image.size))
        at += -(-image.size // ERASE_BLOCK) * ERASE_BLOCK
    if at > flash_size:
        sizes = ", ".join(f"{p.kind} {p.size} B" for p in placed)
        raise LabError(
            f"build {build.label} does not fit the boot flash: {at} B laid out ({sizes}) in a flash of "
            f"{flash_size} B ({build.manifest})"
        )
    return placed


def flash_image(placed: list[Placed], flash_size: int, out: Path) -> None:
    """The whole chip's contents: each image at its offset, the rest erased (0xff)."""
    with out.open("wb") as image:
        image.write(b"\xff" * flash_size)
        for item in placed:
            image.seek(item.offset)
            image.write(item.path.read_bytes())


def uboot_flash_command(placed: list[Placed], read_command: str, kernel_args: list[str]) -> str:
    """One U-Boot command line: each image copied from the flash to its standard address, then `booti`."""
    steps = [item.read(read_command) for item in placed]
    sizes = {item.kind: item.size for item in placed}
    initrd = f"${{ramdisk_addr_r}}:{hex(sizes['initramfs'])}" if "initramfs" in sizes else "-"
    fdt = "${fdt_addr_r}" if "dtb" in sizes else "${fdtcontroladdr}"
    return "; ".join([*steps, *uboot.booti_steps(kernel_args, initrd, fdt)])


@target_factory.reg_driver
@attr.s(eq=False)
class UBootFlashBootDriver(Driver, BootBuildProtocol):
    # The board's power, when the target has it: off while the programmer drives the flash (a clip on a
    # powered board's SPI NOR fights the SoC for the bus).
    bindings: ClassVar[dict] = {
        "flash": "FlashromDriver",
        "bootloader": "UBootDriver",
        "power": {"PowerProtocol", None},
    }

    size = attr.ib(validator=attr.validators.and_(attr.validators.instance_of(int), attr.validators.gt(0)))
    read_command = attr.ib(
        default="sf probe; sf read {addr} {offset} {size}",
        validator=attr.validators.and_(attr.validators.instance_of(str), _valid_read_command),
    )
    boot_args = attr.ib(default="", validator=attr.validators.instance_of(str))  # the board's own arguments

    @Driver.check_bound
    @step(args=["build"])
    def boot_build(self, build: Build) -> None:
        """Before the first power-on: the build goes into the board's flash and every boot starts it."""
        uboot.check_images(self.target.name, build, "copies from its boot flash")
        kernel_args = [*self.boot_args.split(), *build.kernel_args]
        try:
            placed = layout(build, self.size)
        except LabError as exc:
            raise LabError(f"{self.target.name}: {exc}") from exc
        command = uboot_flash_command(placed, self.read_command, kernel_args)  # checked before the flash is
        if self.power is not None:
            self.target.activate(self.power)
            self.power.off()
        self.target.activate(self.flash)
        with tempfile.TemporaryDirectory(prefix="hil-flash-") as scratch:
            image = Path(scratch) / f"{build.name}.flash.bin"
            flash_image(placed, self.size, image)
            self.flash.load(str(image))
        self.bootloader.boot_command = command
