"""hil's one board-image builder. The virtual lab's image (hil.vlab.image) and the rehearsal board's SD card
(hil.bench.image) are each a `Builder`: its inputs (their hash names its cache directory) and how it fills its
directory from them. Shared here: the cache under ~/.cache/hil/<name> with one builder at a time, a build's
staging and manifest, the kernel modules and PC tools it needs, and the command line (`python -m hil.<name>.image`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Generic, Self, TypeVar

from hil import cache, rootfs
from hil.errors import VlabImageError

HIL = Path(__file__).resolve().parent
TOOL_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Kernel modules of what both lab boards measure (modprobe adds their dependencies): the USB gadget stack over
# dummy_hcd (a virtual UDC and host controller in one kernel) and its host side, NVMe, loop devices, and the file
# systems the host side of the MSC gadget formats its disk with (usb.msc.fs.*): FAT32 with its code page and
# charset, and ext2/ext4 (Debian's kernel serves ext2 from ext4).
MEASURED_MODULES = (
    "configfs",
    "dummy_hcd",
    "libcomposite",
    "usb_f_mass_storage",
    "usb_f_ecm",
    "usb_f_ncm",
    "usb_f_rndis",
    "usb_f_fs",
    "usb_f_hid",
    "usb-storage",
    "uas",
    "sd_mod",
    "cdc_ether",
    "rndis_host",
    "cdc_ncm",
    "nvme",
    "loop",
    "vfat",
    "nls_cp437",
    "nls_ascii",
    "ext4",
)


@dataclass(frozen=True)
class Image:
    """A built image: its directory and its manifest (the inputs it was built from)."""

    KERNEL: ClassVar[str]  # file names in the directory
    INITRAMFS: ClassVar[str]
    directory: Path
    manifest: dict

    @classmethod
    def load(cls, directory: Path) -> Self:
        return cls(directory, json.loads((directory / "manifest.json").read_text()))

    @property
    def kernel(self) -> Path:
        return self.directory / self.KERNEL

    @property
    def initramfs(self) -> Path:
        return self.directory / self.INITRAMFS

    @property
    def kernel_version(self) -> str:
        return self.manifest["kernel_version"]


ImageT = TypeVar("ImageT", bound=Image)


@dataclass(frozen=True)
class Builder(Generic[ImageT]):
    name: str  # "vlab": ~/.cache/hil/vlab ($HIL_VLAB_CACHE), `python -m hil.vlab.image`, "hil vlab: ..." logs
    description: str  # the command line's
    image: type[ImageT]
    inputs: Callable[[], dict]  # everything the image depends on; has "kernel_version", maybe "arch"
    # fill(inputs, cache root, scratch directory, image directory): the image's files into the last
    fill: Callable[[dict, Path, Path, Path], None]

    def ensure(
        self, cache_root: Path | None = None, *, force: bool = False, log: Callable[[str], None] = print
    ) -> ImageT:
        """The cached image of the current inputs, built first when missing or `force`d; one builder at a time
        (parallel pytest workers)."""
        root = cache_root or cache.root(self.name, f"HIL_{self.name.upper()}_CACHE")
        inputs = self.inputs()
        target = root / cache.inputs_hash(inputs)
        with cache.locked(root):
            if force and target.exists():
                shutil.rmtree(target)
            if not (target / "manifest.json").is_file():
                started = time.monotonic()
                kernel = f"kernel {inputs['kernel_version']}" + (f", {inputs['arch']}" if "arch" in inputs else "")
                log(f"hil {self.name}: building image {target.name} ({kernel})")
                self._build(inputs, root, target)
                log(f"hil {self.name}: built in {time.monotonic() - started:.1f} s: {target}")
        return self.image.load(target)

    def _build(self, inputs: dict, root: Path, target: Path) -> None:
        staging = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
        try:
            built = staging / "image"
            built.mkdir()
            self.fill(inputs, root, staging, built)
            manifest = {**inputs, "built": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
            (built / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))
            if target.exists():
                shutil.rmtree(target)
            built.rename(target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def main(self, argv: list[str] | None = None, *, prog: str | None = None) -> int:
        """Build or reuse the image, print its directory."""
        parser = argparse.ArgumentParser(prog=prog or f"python -m hil.{self.name}.image", description=self.description)
        parser.add_argument("--cache", type=Path, default=None, help=f"cache root (default: ~/.cache/hil/{self.name})")
        parser.add_argument("--force", action="store_true", help="rebuild even when the cached build is current")
        args = parser.parse_args(argv)
        try:
            image = self.ensure(args.cache, force=args.force, log=lambda msg: print(msg, file=sys.stderr))
        except VlabImageError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(image.directory)
        return 0


def sources(*files: Path) -> dict[str, str]:
    """The sha256 of a builder's own files and of the shared ones (this module, hil.rootfs), by path in hil."""
    everything = sorted({*files, Path(__file__).resolve(), Path(rootfs.__file__).resolve()})
    return {path.relative_to(HIL).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest() for path in everything}


def which(tool: str, package: str) -> Path:
    """A tool of the lab PC, or an error naming the Debian package that has it."""
    found = shutil.which(tool, path=TOOL_PATH)
    if found is None:
        raise VlabImageError(f"`{tool}` is missing on the lab PC: install it with `apt-get install {package}`")
    return Path(found)


def install_modules(sysroot: Path, root: Path, version: str, names: tuple[str, ...], needed_by: str) -> None:
    """The kernel modules `names` of `sysroot` (/ for the PC's own) with their dependencies, at their paths
    under `root`, with depmod's indexes."""
    proc = subprocess.run(
        ["modprobe", "-d", str(sysroot), "-S", version, "-a", "--show-depends", *names],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise VlabImageError(f"kernel {version} lacks a module {needed_by} needs:\n{proc.stderr}")
    # modprobe names them below the sysroot as given ("//lib/modules/..." for /)
    modules = {line.split()[1] for line in proc.stdout.splitlines() if line.startswith("insmod ")}
    for module in sorted(modules):
        rootfs.install_file(Path(module), root / module.removeprefix(str(sysroot)).lstrip("/"))
    modules_dir = sysroot / "lib/modules" / version
    for name in ("modules.order", "modules.builtin", "modules.builtin.modinfo"):
        if (modules_dir / name).is_file():
            rootfs.install_file(modules_dir / name, root / "lib/modules" / version / name)
    subprocess.run(["depmod", "-b", str(root), version], check=True)
