"""Build the rehearsal board's SD card: Debian's arm64 kernel and userland on a partitioned disk image that
U-Boot boots, as a BSP team's image for an EVB.

    python -m hil.bench.image            # build (or reuse) and print the image directory

The card (`sd.img`, MBR): partition 1, `BOOT` (ext2, what U-Boot reads), holds `Image` (Debian's arm64 kernel),
`initrd.img` (busybox and the modules that mount the root filesystem: the disk controller and ext4 are modules in
Debian's kernel) and the `extlinux/extlinux.conf` U-Boot's distro boot (`run bootcmd`) boots; partition 2,
`rootfs` (ext4, persistent across power cycles), holds busybox init and getty on the serial console, PROGRAMS
with their libraries, ROOTFS_MODULES and room in /var/lib/hil for what hil deploys (nothing of hil's own is on
the card). Everything comes from Debian's arm64 archive (hil.bench.debian). Cached under ~/.cache/hil/bench/
(HIL_BENCH_CACHE) by a hash of its inputs: package versions, this builder and the board's files.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from hil import rootfs
from hil.bench import debian
from hil.errors import VlabImageError
from hil.image import MEASURED_MODULES, Builder, Image, install_modules, sources, which

BUILDER_VERSION = 1
HERE = Path(__file__).resolve().parent
BOARD_FILES = HERE / "board"
ARCH = "arm64"
KERNEL_METAPACKAGE = "linux-image-arm64"
USERLAND = (
    "busybox-static",
    "dash",
    "coreutils",
    "fio",
    "iperf3",
    "dropbear-bin",
    "openssh-sftp-server",
    "lrzsz",
    "libc6",
)
# Files taken from the unpacked packages (paths there), with the libraries they load.
PROGRAMS = (
    "bin/dash",
    "bin/dd",
    "bin/date",
    "usr/bin/fio",
    "usr/bin/iperf3",
    "usr/sbin/dropbear",
    "usr/lib/openssh/sftp-server",  # scp and sftp clients (labgrid's SSHDriver.put) speak SFTP
    "usr/bin/rz",  # XMODEM receiver: labgrid's ShellDriver.put sends files over the serial console with it
    "usr/bin/sz",
)
LIBRARY_DIRS = ["lib/aarch64-linux-gnu", "usr/lib/aarch64-linux-gnu", "lib", "usr/lib"]
# The initramfs mounts the root filesystem: the disk's virtio controller and ext4.
INITRAMFS_MODULES = ("virtio_pci", "virtio_blk", "ext4")
# What the board's measurements use, and the virtio devices its disks and its Ethernet (SSH) are on.
ROOTFS_MODULES = (*MEASURED_MODULES, "virtio_net", "virtio_pci", "virtio_blk")
HOSTNAME = "rboard"
BOOT_MB = 48
ROOT_MB = 896
SECTOR = 512
FIRST_SECTOR = 2048  # 1 MiB: where partitioning tools start, leaving room for a boot loader
UBOOT = Path("/usr/lib/u-boot/qemu_arm64/u-boot.bin")
KERNEL_COMMAND_LINE = "root=/dev/vda2 rootwait console=ttyAMA0,115200 loglevel=3 panic=-1"


class BenchImage(Image):
    KERNEL = "Image"  # the card's kernel and initramfs, also beside it (a build of them boots over TFTP)
    INITRAMFS = "initrd.img"

    @property
    def sd_card(self) -> Path:
        return self.directory / "sd.img"

    @property
    def uboot(self) -> Path:
        return Path(self.manifest["uboot"])

    @property
    def uboot_version(self) -> str:
        return self.manifest["uboot_version"]


def uboot_version(binary: Path = UBOOT) -> str:
    """The U-Boot banner string of the boot loader binary ("U-Boot 2023.01+dfsg-2+deb12u1")."""
    if not binary.is_file():
        raise VlabImageError(f"{binary} is missing: apt-get install u-boot-qemu")
    found = re.search(rb"U-Boot (20\d\d\.\d\d[^\s\x00]*)", binary.read_bytes())
    if found is None:
        raise VlabImageError(f"{binary} carries no U-Boot version string")
    return "U-Boot " + found.group(1).decode("ascii", "replace")


def _kernel_package() -> str:
    records = debian._show([KERNEL_METAPACKAGE], ARCH)
    if not records:
        raise VlabImageError(
            f"no {ARCH} {KERNEL_METAPACKAGE} here: run `dpkg --add-architecture {ARCH} && apt-get update`"
        )
    depends = records[0].get("Depends", "")
    found = re.search(r"\b(linux-image-[0-9][^\s,(]*)", depends)
    if found is None:
        raise VlabImageError(f"{KERNEL_METAPACKAGE} ({ARCH}) names no kernel package: {depends!r}")
    return found.group(1)


def build_inputs() -> dict:
    """Everything the card depends on; its hash names the cache directory."""
    kernel_package = _kernel_package()
    packages = debian.closure([kernel_package, *USERLAND], ARCH)
    return {
        "builder_version": BUILDER_VERSION,
        "arch": ARCH,
        "kernel_package": kernel_package,
        "kernel_version": kernel_package.removeprefix("linux-image-"),
        "packages": packages,
        "uboot": str(UBOOT),
        "uboot_version": uboot_version(),
        "modules": {"initramfs": list(INITRAMFS_MODULES), "rootfs": list(ROOTFS_MODULES)},
        "command_line": KERNEL_COMMAND_LINE,
        "sources": sources(HERE / "image.py", HERE / "debian.py", *BOARD_FILES.iterdir()),
    }


def _fill(inputs: dict, cache_root: Path, scratch: Path, image: Path) -> None:
    sysroot = (scratch / "sysroot").resolve()
    debian.unpack(debian.download(inputs["packages"], ARCH, cache_root / "debs"), sysroot)
    version = inputs["kernel_version"]
    subprocess.run(["depmod", "-b", str(sysroot), version], check=True)
    boot, root, initramfs = scratch / "boot", scratch / "root", scratch / "initramfs"
    _root_filesystem(sysroot, root, version)
    _initramfs(sysroot, initramfs, version)
    boot.mkdir()
    shutil.copyfile(sysroot / "boot" / f"vmlinuz-{version}", boot / "Image")
    rootfs.write_cpio(initramfs, boot / "initrd.img")
    (boot / "extlinux").mkdir()
    (boot / "extlinux" / "extlinux.conf").write_text(
        "# U-Boot's distro boot (run bootcmd) finds this on the first bootable partition.\n"
        "default rehearsal\ntimeout 1\n\nlabel rehearsal\n"
        f"    linux /Image\n    initrd /initrd.img\n    append {KERNEL_COMMAND_LINE}\n"
    )
    _sd_card(boot, root, image / "sd.img")
    # The card's kernel and initramfs also beside it: what a lab's TFTP server would serve (hil.build).
    for name in ("Image", "initrd.img"):
        (boot / name).rename(image / name)


def _busybox_applets(sysroot: Path) -> list[str]:
    """The applets of the arm64 busybox with the directory each belongs in (sbin/modprobe: where the kernel
    looks for it), listed by the PC's busybox of the same Debian version (an arm64 binary does not run here)."""
    host = which("busybox", "busybox-static")
    board_version = re.search(rb"BusyBox v([0-9.]+)", (sysroot / "bin/busybox").read_bytes())
    listing = subprocess.run([host, "--list-full"], capture_output=True, text=True, check=True).stdout.split()
    banner = subprocess.run([host], capture_output=True, text=True, check=False).stdout
    if board_version is None or f"BusyBox v{board_version.group(1).decode()}" not in banner:
        raise VlabImageError("the PC's busybox is another version than the board's: cannot list its applets")
    return listing


def _root_filesystem(sysroot: Path, root: Path, version: str) -> None:
    rootfs.make_skeleton(root, extra_dirs=("var/log", "var/lib/hil", "etc/init.d", "etc/dropbear"))
    rootfs.copy_with_libraries(sysroot, list(PROGRAMS), root, library_dirs=LIBRARY_DIRS)
    # After the programs: an applet links only where no real program is (coreutils dd prints its rate).
    rootfs.install_busybox(root, sysroot / "bin/busybox", _busybox_applets(sysroot))
    (root / "usr/bin/sh").unlink(missing_ok=True)
    (root / "usr/bin/sh").symlink_to("dash")
    (root / "usr/lib/sftp-server").symlink_to("openssh/sftp-server")  # where Debian's dropbear looks for it
    install_modules(sysroot, root, version, ROOTFS_MODULES, "the rehearsal board")
    rootfs.install_file(BOARD_FILES / "rcS", root / "etc/init.d/rcS", mode=0o755)
    rootfs.install_file(BOARD_FILES / "inittab", root / "etc/inittab", mode=0o644)
    rootfs.install_file(BOARD_FILES / "profile", root / "etc/profile", mode=0o644)
    (root / "etc/hostname").write_text(HOSTNAME + "\n")
    # root without a password on the serial console, as on a development board; SSH takes keys only.
    (root / "etc/passwd").write_text("root::0:0:root:/root:/bin/sh\n")
    (root / "etc/group").write_text("root:x:0:\n")
    (root / "etc/shells").write_text("/bin/sh\n/bin/dash\n")
    (root / "etc/os-release").write_text(
        'PRETTY_NAME="hil rehearsal board (Debian 12 arm64 userland)"\nNAME="hil rehearsal board"\n'
        f'ID=hil-rehearsal\nVERSION_ID="{BUILDER_VERSION}"\n'
    )
    (root / "root").chmod(0o700)


def _initramfs(sysroot: Path, initramfs: Path, version: str) -> None:
    rootfs.make_skeleton(initramfs)
    rootfs.install_busybox(initramfs, sysroot / "bin/busybox", _busybox_applets(sysroot))
    install_modules(sysroot, initramfs, version, INITRAMFS_MODULES, "the rehearsal board")
    rootfs.install_file(BOARD_FILES / "initramfs-init.sh", initramfs / "init", mode=0o755)
    (initramfs / "etc/modules-initramfs").write_text("\n".join(INITRAMFS_MODULES) + "\n")


def _sd_card(boot: Path, root: Path, card: Path) -> None:
    """An MBR disk image: BOOT (ext2, bootable) and rootfs (ext4), filled with mkfs -d (no loop mounts)."""
    boot_sectors = BOOT_MB * 1024 * 1024 // SECTOR
    root_sectors = ROOT_MB * 1024 * 1024 // SECTOR
    root_start = FIRST_SECTOR + boot_sectors
    with card.open("wb") as disk:
        disk.truncate((root_start + root_sectors) * SECTOR)
    layout = (
        "label: dos\n"
        f"start={FIRST_SECTOR}, size={boot_sectors}, type=83, bootable\n"
        f"start={root_start}, size={root_sectors}, type=83\n"
    )
    _run(["sfdisk", "--quiet", str(card)], stdin=layout)
    parts = card.parent
    _run(["mkfs.ext2", "-q", "-F", "-L", "BOOT", "-d", str(boot), str(parts / "boot.part"), f"{BOOT_MB}M"])
    _run(["mkfs.ext4", "-q", "-F", "-L", "rootfs", "-d", str(root), str(parts / "root.part"), f"{ROOT_MB}M"])
    for part, start in (("boot.part", FIRST_SECTOR), ("root.part", root_start)):
        _run(
            ["dd", f"if={parts / part}", f"of={card}", "bs=512", f"seek={start}", "conv=notrunc,sparse", "status=none"]
        )
        (parts / part).unlink()


def _run(command: list[str], *, stdin: str | None = None) -> None:
    tool = which(command[0], {"sfdisk": "fdisk", "dd": "coreutils"}.get(command[0], "e2fsprogs"))
    proc = subprocess.run([tool, *command[1:]], input=stdin, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise VlabImageError(f"`{' '.join(command)}` failed:\n{proc.stderr.strip()}")


BUILDER = Builder("bench", __doc__.split("\n\n")[0], BenchImage, build_inputs, _fill)
ensure_image, main = BUILDER.ensure, BUILDER.main


if __name__ == "__main__":
    raise SystemExit(main())
