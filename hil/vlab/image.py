"""Build the virtual board: a Debian kernel and an initramfs of busybox, kernel modules and the measuring tools.

Everything comes from Debian packages installed on the lab PC (see `.ci/run` for the list), cached by a hash
of the inputs (hil.image): kernel and package versions, module and tool lists, this builder's own files.

    python -m hil.vlab.image            # build (or reuse) and print the image directory
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from hil import rootfs
from hil.errors import VlabImageError
from hil.image import MEASURED_MODULES, Builder, Image, install_modules, sources, which
from hil.install import debian_versions
from hil.vlab.tool_checks import check_tools

BUILDER_VERSION = 1
HERE = Path(__file__).resolve().parent

# Kernel modules the virtual lab needs besides those both lab boards measure with.
MODULES = (
    *MEASURED_MODULES,
    "usb_f_uvc",
    "uvcvideo",
    "usbhid",
    "hid-generic",
    "xhci-pci",
    # A V4L2 capture device that needs no USB: dummy_hcd has no isochronous endpoints, so no isochronous
    # UVC stream runs in the virtual lab, and v4l2_fps is also checked against this test pattern generator.
    "vivid",
    # USB/IP's virtual UDC and host controller: a UVC gadget binds and enumerates there (dummy_hcd refuses
    # it), but vudc fails every isochronous transfer (-EXDEV) in Linux 6.1; tests/vlab/test_uvc_vlab.py
    # watches both routes and fails when a kernel lets a stream through.
    "usbip-vudc",
    "vhci-hcd",
    # GadgetFS: hil's bulk UVC camera (hil/tools/uvc_gadgetfs.c) writes its own descriptors there, so a
    # UVC stream crosses dummy_hcd over a bulk endpoint (f_uvc and FunctionFS cannot).
    "gadgetfs",
    "f2fs",  # fio on a file system of the NVMe drive (nvme.* target=f2fs, seed 002)
    # The board's own storage (storage.local.*): an SD card behind QEMU's SDHCI controller, the MMC stack an
    # eMMC or SD card goes through on a real board.
    "sdhci-pci",
    "mmc_block",
)

# Tools copied into the image with the libraries `ldd` lists, and the Debian package that provides each.
# coreutils dd because busybox dd prints no transfer rate. dash is the board's /bin/sh: Debian's busybox
# shell runs its own applets before PATH (so `dd` or `ip` would silently be busybox's).
TOOLS: dict[str, str] = {
    "dash": "dash",
    "dd": "coreutils",
    "hdparm": "hdparm",  # seed 001's raw read beside dd: usb.msc.hdparm.read
    "fio": "fio",
    "iperf3": "iperf3",
    "iperf": "iperf",
    "mpstat": "sysstat",
    "ip": "iproute2",
    "umtprd": "umtp-responder",
    "mtp-detect": "mtp-tools",
    "mtp-sendfile": "mtp-tools",
    "mtp-getfile": "mtp-tools",
    "v4l2-ctl": "v4l-utils",
    "usbip": "usbip",
    "usbipd": "usbip",
    # Busybox's mke2fs makes ext2 only: fio on an NVMe file system (target=ext4|f2fs) needs the real ones.
    "mkfs.ext4": "e2fsprogs",
    "mkfs.f2fs": "f2fs-tools",
    "date": "coreutils",  # busybox date has no %N: the MSC filesystem write times its sync in nanoseconds
    # XMODEM receiver: hil deploys its own programs over the console (labgrid's ShellDriver.put), as on a
    # board without network; the image holds none of them.
    "rz": "lrzsz",
}
# libmtp converts its strings with iconv("UTF-16LE"): glibc loads that converter at run time from gconv,
# which `ldd` does not list. Without it every mtp-* tool fails with "Cannot open iconv() converters".
GCONV_DIR = Path("/usr/lib/x86_64-linux-gnu/gconv")
GCONV_MODULES = ("UTF-16",)
HOST_TOOLS = {"busybox": "busybox-static", "cpio": "cpio", "depmod": "kmod", "modprobe": "kmod"}

# Android's property service and USB triggers, emulated for the android gadget backend (see the script).
ANDROID_USB = "android-usb.sh"


class VlabImage(Image):
    KERNEL = "vmlinuz"
    INITRAMFS = "initramfs.cpio"


def find_kernel(boot_dir: Path = Path("/boot"), modules_dir: Path = Path("/lib/modules")) -> tuple[str, Path]:
    """The newest installed Debian kernel that has its modules installed."""
    kernels = ((vmlinuz.name.removeprefix("vmlinuz-"), vmlinuz) for vmlinuz in boot_dir.glob("vmlinuz-*"))
    candidates = [(version, path) for version, path in kernels if (modules_dir / version / "modules.dep").is_file()]
    if not candidates:
        raise VlabImageError(
            f"no Debian kernel with modules found under {boot_dir} and {modules_dir}: "
            "install it with `apt-get install linux-image-amd64`"
        )
    return max(candidates, key=lambda item: [int(part) for part in re.findall(r"\d+", item[0])])


def _package_versions(packages: list[str]) -> dict[str, str]:
    versions = debian_versions(packages)
    if missing := [p for p in packages if p not in versions]:
        raise VlabImageError(f"Debian packages not installed: {', '.join(missing)} (apt-get install them)")
    return versions


def build_inputs() -> dict:
    """Everything the image depends on; its hash names the cache directory."""
    kernel_version, vmlinuz = find_kernel()
    for tool, package in {**HOST_TOOLS, **TOOLS}.items():
        which(tool, package)
    packages = sorted({f"linux-image-{kernel_version}", *HOST_TOOLS.values(), *TOOLS.values()})
    return {
        "builder_version": BUILDER_VERSION,
        "kernel_version": kernel_version,
        "kernel_image": str(vmlinuz),
        "packages": _package_versions(packages),
        "modules": list(MODULES),
        "tools": TOOLS,
        "sources": sources(
            *(HERE / name for name in ("image.py", "tool_checks.py", "init.sh", "profile.sh", ANDROID_USB))
        ),
    }


def _fill(inputs: dict, cache_root: Path, scratch: Path, image: Path) -> None:
    check_tools(TOOLS, inputs["packages"])
    root = scratch / "root"
    rootfs.make_skeleton(root, lib64=True)
    install_modules(Path("/"), root, inputs["kernel_version"], MODULES, "the vlab")
    _install_tools(root)
    _install_gconv(root)
    (root / "usr/bin/sh").symlink_to("dash")
    busybox = which("busybox", "busybox-static")
    applets = subprocess.run([str(busybox), "--list"], capture_output=True, text=True, check=True).stdout.split()
    rootfs.install_busybox(root, busybox, applets)
    rootfs.install_file(HERE / "init.sh", root / "init", mode=0o755)
    rootfs.install_file(HERE / "profile.sh", root / "etc/profile", mode=0o644)
    # setprop and getprop too: one script by three names, as toybox is one binary by many
    rootfs.install_file(HERE / ANDROID_USB, root / "usr/bin/android-usb", mode=0o755)
    for name in ("setprop", "getprop"):
        (root / "usr/bin" / name).symlink_to("android-usb")
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    (root / "etc/group").write_text("root:x:0:\n")
    shutil.copyfile(inputs["kernel_image"], image / "vmlinuz")
    rootfs.write_cpio(root, image / "initramfs.cpio")


def _install_tools(root: Path) -> None:
    binaries = [which(tool, package) for tool, package in TOOLS.items()]
    libraries: set[str] = set()
    for binary in binaries:
        rootfs.install_file(binary, root / "usr/bin" / binary.name, mode=0o755)
        libraries |= _shared_libraries(binary)
    for library in sorted(libraries):
        rootfs.install_file(Path(library), root / library.lstrip("/"))


def _install_gconv(root: Path) -> None:
    """The gconv converters in GCONV_MODULES, with a gconv-modules file that names only them."""
    rows = [line.split() for line in (GCONV_DIR / "gconv-modules").read_text().splitlines()]
    modules = [row for row in rows if len(row) >= 4 and row[0] == "module" and row[3] in GCONV_MODULES]
    names = {name for row in modules for name in row[1:3]}
    aliases = [row for row in rows if len(row) == 3 and row[0] == "alias" and row[2] in names]
    dest = root / GCONV_DIR.relative_to("/")
    for name in GCONV_MODULES:
        rootfs.install_file(GCONV_DIR / f"{name}.so", dest / f"{name}.so")
    (dest / "gconv-modules").write_text("".join("\t".join(row) + "\n" for row in aliases + modules))


def _shared_libraries(binary: Path) -> set[str]:
    proc = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=False)
    if proc.returncode != 0 and "not a dynamic executable" in proc.stdout + proc.stderr:
        return set()
    found = set()
    for line in proc.stdout.splitlines():
        if "not found" in line:
            raise VlabImageError(f"{binary}: library missing on the lab PC: {line.strip()}")
        if match := re.search(r"(/\S+) \(0x", line):
            found.add(match.group(1))
    return found


BUILDER = Builder("vlab", __doc__.split("\n\n")[0], VlabImage, build_inputs, _fill)
ensure_image, main = BUILDER.ensure, BUILDER.main


if __name__ == "__main__":
    raise SystemExit(main())
