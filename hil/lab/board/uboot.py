"""What every way of booting a build from U-Boot shares: the images U-Boot boots, the check that a word can
go on its command line, and the last steps (kernel arguments, `booti`)."""

from __future__ import annotations

import re

from hil.build.manifest import Build
from hil.errors import LabError

BOOT_IMAGES = ("kernel", "initramfs", "dtb")  # an arm64 kernel Image, an initramfs, a device tree
# What U-Boot's command line must not see in a path or an argument: a separator, an expansion, a quote.
_UBOOT_SPECIAL = re.compile(r"[\s;$'\"\\#`]")


def check_images(target: str, build: Build, how: str) -> None:
    """A build U-Boot can boot: a kernel, optionally an initramfs and a device tree, nothing else."""
    unused = sorted(set(build.images) - set(BOOT_IMAGES))
    if "kernel" not in build.images or unused:
        have = "has no kernel" if "kernel" not in build.images else f"also has {unused}"
        raise LabError(
            f"{target}: U-Boot {how} a kernel, an initramfs and a device tree; build {build.label} {have} "
            f"({build.manifest})"
        )


def check_words(words: list[str]) -> None:
    """Every path and argument bound for U-Boot's command line: there is no quoting that survives
    `setenv bootargs`, so a word U-Boot's shell would split or expand is refused."""
    for word in words:
        if not word or _UBOOT_SPECIAL.search(word):
            raise LabError(f"{word!r} cannot go on U-Boot's command line (a space, ; $ quote or backslash)")


def booti_steps(kernel_args: list[str], initrd: str, fdt: str) -> list[str]:
    """The arguments, then `booti` of the kernel at the standard address with `initrd` ("-" for none) and
    `fdt` (the board's own device tree: "${fdtcontroladdr}")."""
    check_words(kernel_args)
    return [f"setenv bootargs {' '.join(kernel_args)}", f"booti ${{kernel_addr_r}} {initrd} {fdt}"]
