"""Put a build on a U-Boot board over TFTP, the way labs boot a kernel under test: labgrid's TFTP provider
serves the build's images, U-Boot fetches them on every boot and starts the kernel with the build's arguments.

In a labgrid environment (examples/rehearsal-env.yaml):

    resources:
      TFTPProvider: {internal: /srv/tftp/rk3399-a, external: rk3399-a}   # the TFTP server's root, and the
    drivers:                                                            # same folder as the board asks for it
      TFTPProviderDriver: {}
      UBootDriver: {...}
      UBootTFTPBootDriver: {boot_args: "root=/dev/mmcblk0p2 rootwait console=ttyS2,1500000"}

`boot_build` stages the images (labgrid links them into the provider's folder) and replaces U-Boot's boot
command with one that brings up the network, fetches the kernel, the initramfs and the device tree (the
board's own, `fdtcontroladdr`, when the build has none) to U-Boot's standard load addresses and `booti`s
them: an arm64 kernel Image. The board's own arguments (root, console) come first, the build's after them.
Without a build the driver does nothing: the board boots what its boot command says.
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

    `staged`: image kind -> the path the TFTP server knows it by. Every path and argument is checked for what
    U-Boot's shell would split or expand (uboot.check_words)."""
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
