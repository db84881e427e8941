"""Building a board's root filesystem on the PC: a skeleton, files installed with their modes, busybox with its
applets, ELF files and the shared libraries they need, and an initramfs (cpio) of the result; for the virtual
lab's image (hil.vlab.image, the PC's own x86 binaries) and the rehearsal board's card (hil.bench.image, arm64).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import struct
import subprocess
from pathlib import Path

from hil.errors import VlabImageError

SKELETON = ("usr/bin", "usr/sbin", "usr/lib", "etc", "root", "proc", "sys", "dev", "tmp", "run", "mnt", "var/run")
# Debian 12 is merged-/usr: libraries are listed as /lib/..., binaries live in /usr/bin.
MERGED_USR = (("bin", "usr/bin"), ("sbin", "usr/sbin"), ("lib", "usr/lib"))


def make_skeleton(root: Path, *, extra_dirs: tuple[str, ...] = (), lib64: bool = False) -> None:
    for directory in (*SKELETON, *extra_dirs, *(("usr/lib64",) if lib64 else ())):
        (root / directory).mkdir(parents=True, exist_ok=True)
    for link, dest in (*MERGED_USR, *((("lib64", "usr/lib64"),) if lib64 else ())):
        (root / link).symlink_to(dest)
    # The kernel opens /dev/console before /init runs; without it init has no stdout.
    os.mknod(root / "dev/console", stat.S_IFCHR | 0o600, os.makedev(5, 1))


def install_file(source: Path, dest: Path, *, mode: int | None = None) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, dest)  # keeps the mode: the dynamic loader must stay executable
    if mode is not None:
        dest.chmod(mode)


def install_busybox(root: Path, busybox: Path, applets: list[str]) -> None:
    """busybox into /usr/bin and a link per applet that no other file of the image provides. An applet is a
    name (linked in /usr/bin) or a path as `busybox --list-full` gives it ("sbin/modprobe": where the kernel
    and init look for it)."""
    install_file(busybox, root / "usr/bin/busybox", mode=0o755)
    for applet in applets:
        link = root / "usr" / applet.removeprefix("usr/") if "/" in applet else root / "usr/bin" / applet
        if not link.exists() and not link.is_symlink():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(os.path.relpath(root / "usr/bin/busybox", link.parent))


def write_cpio(root: Path, output: Path) -> None:
    # Uncompressed: under TCG the kernel unpacks a plain cpio faster than it inflates a compressed one.
    names = sorted(str(path.relative_to(root)) for path in root.rglob("*"))
    with output.open("wb") as out:
        subprocess.run(
            ["cpio", "--quiet", "-o", "-H", "newc", "-R", "0:0"],
            input="\n".join(names).encode(),
            stdout=out,
            cwd=root,
            check=True,
        )


def elf_machine(path: Path) -> int | None:
    """The ELF e_machine of a file, or None when it is no ELF file."""
    with path.open("rb") as file:
        header = file.read(20)
    if len(header) < 20 or header[:4] != b"\x7fELF":
        return None
    order = "<" if header[5] == 1 else ">"
    return struct.unpack(order + "H", header[18:20])[0]


def _dynamic(path: Path) -> tuple[list[str], list[str], str | None]:
    """(NEEDED sonames, RUNPATH/RPATH entries, program interpreter) of an ELF file, read by binutils' readelf."""
    proc = subprocess.run(["readelf", "-d", "-l", "-W", str(path)], capture_output=True, text=True, check=False)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", proc.stdout)
    interpreter = re.search(r"Requesting program interpreter: ([^\]]+)\]", proc.stdout)
    paths = [
        p
        for entry in re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]+)\]", proc.stdout)
        for p in entry.split(":")
    ]
    return needed, paths, interpreter.group(1) if interpreter else None


def copy_with_libraries(sysroot: Path, files: list[str], root: Path, *, library_dirs: list[str]) -> None:
    """Copy `files` (paths inside `sysroot`) into `root` at the same paths, with every shared library they
    need, resolved in `library_dirs` (and RUNPATHs) of the sysroot like the board's dynamic loader would.
    A library found nowhere is a VlabImageError naming who needs it."""
    queue = [sysroot / name.lstrip("/") for name in files]
    copied: set[Path] = set()
    while queue:
        path = queue.pop()
        if path in copied:
            continue
        copied.add(path)
        relative = path.relative_to(sysroot)
        _copy_keeping_links(sysroot, relative, root)
        real = path.resolve()
        needed, runpaths, interpreter = _dynamic(real)
        if interpreter is not None:  # the loader at the path the kernel opens (/lib/ld-linux-aarch64.so.1)
            loader = sysroot / interpreter.lstrip("/")
            if not loader.exists() and not loader.is_symlink():
                raise VlabImageError(f"{relative} needs its loader {interpreter}, found in no unpacked package")
            queue.append(loader)
        search = [p.replace("$ORIGIN", "/" + str(real.parent.relative_to(sysroot.resolve()))) for p in runpaths]
        for soname in needed:
            for directory in [*search, *library_dirs]:
                candidate = sysroot / directory.lstrip("/") / soname
                if candidate.exists():
                    queue.append(candidate)  # copied once: a path already copied is skipped when popped
                    break
            else:
                raise VlabImageError(f"{relative} needs {soname}, found in no package unpacked into {sysroot}")


def _copy_keeping_links(sysroot: Path, relative: Path, root: Path) -> None:
    """Copy a file; a symlink is copied as a link and its target too (ld.so and sonames are links)."""
    source, dest = sysroot / relative, root / relative
    dest.parent.mkdir(parents=True, exist_ok=True)
    if source.is_symlink():
        target = str(source.readlink())
        if not dest.is_symlink() and not dest.exists():
            dest.symlink_to(target)
        resolved = (source.parent / target) if not target.startswith("/") else sysroot / target.lstrip("/")
        _copy_keeping_links(sysroot, Path(os.path.normpath(resolved)).relative_to(sysroot), root)
    elif not dest.exists():
        shutil.copy2(source, dest)
