"""Put a build on a U-Boot board over TFTP, the way labs boot a kernel under test: labgrid's TFTP provider
serves the build's images, U-Boot fetches them on every boot and starts the kernel with the build's arguments
(examples/rehearsal-env.yaml declares one). `boot_build` replaces U-Boot's boot command with one that brings up
the network, fetches the images to U-Boot's standard load addresses (the board's own device tree when the
build has none) and `booti`s the arm64 kernel Image, the board's own arguments first, the build's after them.
"""

from __future__ import annotations

from typing import ClassVar

import attr
from labgrid.driver.common import Driver
from labgrid.factory import target_factory
from labgrid.step import step

from hil.build.manifest import Build
from hil.errors import LabError
from hil.lab.board import uboot
from hil.lab.board.provision import BootBuildProtocol


@target_factory.reg_driver
@attr.s(eq=False)
class UBootTFTPBootDriver(Driver, BootBuildProtocol):
    bindings: ClassVar[dict] = {"tftp": "TFTPProviderDriver", "bootloader": "UBootDriver"}

    boot_args = attr.ib(default="", validator=attr.validators.instance_of(str))  # the board's own arguments

    @Driver.check_bound
    @step(args=["build"])
    def boot_build(self, build: Build) -> None:
        """Before the first power-on: every boot of the board now fetches `build` over TFTP."""
        uboot.check_images(self.target.name, build, "fetches over TFTP")
        names = [image.path.name for image in build.images.values()]
        if len(set(names)) != len(names):  # the provider's folder is flat: one link per file name
            raise LabError(f"{self.target.name}: build {build.label} has two images named alike: {names}")
        self.target.activate(self.tftp)
        staged = {kind: self.tftp.stage(str(image.path)) for kind, image in build.images.items()}
        self.bootloader.boot_command = uboot_tftp_command(staged, [*self.boot_args.split(), *build.kernel_args])


def uboot_tftp_command(staged: dict[str, str], kernel_args: list[str]) -> str:
    """One U-Boot command line: network up, images fetched to the standard addresses, `booti`.

    `staged`: image kind -> the path the TFTP server knows it by."""
    uboot.check_words(list(staged.values()))
    steps = ["pci enum", "setenv autoload no", "dhcp", f"tftpboot ${{kernel_addr_r}} {staged['kernel']}"]
    initrd = "-"
    if "initramfs" in staged:
        steps += [f"tftpboot ${{ramdisk_addr_r}} {staged['initramfs']}", "setenv hil_initrd_size ${filesize}"]
        initrd = "${ramdisk_addr_r}:${hil_initrd_size}"
    fdt = "${fdtcontroladdr}"
    if "dtb" in staged:
        steps.append(f"tftpboot ${{fdt_addr_r}} {staged['dtb']}")
        fdt = "${fdt_addr_r}"
    return "; ".join([*steps, *uboot.booti_steps(kernel_args, initrd, fdt)])
