"""A filesystem on a block device of a role: make it (with the role's first mkfs), mount it, unmount it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from hil.errors import LabError, Unavailable
from hil.lab.board import shell
from hil.lab.board.role import Role

log = logging.getLogger(__name__)

Argv = tuple[str, ...]
# Per filesystem: the mkfs programs to try in order, each with the options that format a whole disk
# without asking (busybox mkdosfs always makes FAT32 and knows no options; dosfstools needs -I for a disk).
MKFS: dict[str, tuple[Argv, ...]] = {
    "vfat": (("mkfs.vfat", "-F", "32", "-I"), ("mkdosfs",)),
    "ext2": (("mkfs.ext2", "-F", "-q", "-b", "4096"), ("mke2fs", "-F", "-b", "4096")),
    "ext4": (("mkfs.ext4", "-F", "-q", "-b", "4096"),),
    "f2fs": (("mkfs.f2fs", "-f", "-q"),),
}
# Kernel modules each needs (FAT's default code page and charset; the Debian kernel serves ext2 from ext4).
MODULES: dict[str, tuple[str, ...]] = {
    "vfat": ("vfat", "nls_cp437", "nls_ascii"),
    "ext2": ("crc32c_generic", "ext4"),  # ext4 needs crc32c and does not load it itself
    "ext4": ("crc32c_generic", "ext4"),
    "f2fs": ("crc32_generic", "f2fs"),  # f2fs needs crc32: a softdep, which busybox's modprobe ignores
}
MOUNTPOINT = "/mnt/hil-msc"


def mkfs_command(role: Role, fs: str) -> Argv:
    """The first mkfs for `fs` the role has, with its options; LabError naming all that were tried."""
    try:
        candidates = MKFS[fs]
    except KeyError:
        raise ValueError(f"unknown filesystem {fs!r} (known: {', '.join(MKFS)})") from None
    for argv in candidates:
        if role.run_status(shell.cmd("command", "-v", argv[0]) + " >/dev/null")[0] == 0:
            return argv
    raise LabError(f"{role.label}: no mkfs for {fs} (tried {', '.join(argv[0] for argv in candidates)})")


def kernel_filesystems(proc_filesystems: str) -> set[str]:
    """The filesystems a kernel mounts, from /proc/filesystems ("nodev\tsysfs", "\text4" lines)."""
    return {line.split()[-1] for line in proc_filesystems.splitlines() if line.strip()}


def mount_options(proc_mounts: str, mountpoint: str) -> str:
    """The options the kernel applied to the mount at `mountpoint` (/proc/mounts' 4th field; the last mount
    there wins), ValueError when nothing is mounted there."""
    found = [line[3] for line in map(str.split, proc_mounts.splitlines()) if len(line) >= 4 and line[1] == mountpoint]
    if not found:
        raise ValueError(f"nothing is mounted at {mountpoint} (/proc/mounts: {proc_mounts.strip()[:300]!r})")
    return found[-1]


def supported(role: Role, fs: str) -> Argv:
    """The role's mkfs for `fs` once its kernel has `fs` (the modules loaded), for `mounted`; Unavailable where it
    lacks either."""
    try:
        mkfs = mkfs_command(role, fs)
    except LabError as error:
        raise Unavailable(str(error)) from None
    role.run(shell.quiet(shell.cmd("modprobe", "-a", *MODULES[fs])), timeout=60)
    if fs not in kernel_filesystems(role.run(shell.cmd("cat", "/proc/filesystems"), timeout=30)):
        modprobe = " ".join(MODULES[fs])
        raise Unavailable(f"{role.label}: the kernel has no {fs} (not in /proc/filesystems after modprobe {modprobe})")
    return mkfs


@contextmanager
def mounted(
    role: Role, node: str, fs: str, *, mountpoint: str = MOUNTPOINT, options: tuple[str, ...] = (), mkfs: Argv = ()
) -> Iterator[str]:
    """Format `node` with `fs` (its data is lost), mount it with `options`, yield the mount point, unmount after.
    mkfs: `supported`'s; none: probed and modules loaded here."""
    if not mkfs:
        mkfs = mkfs_command(role, fs)
        # Built-in modules are fine too: modprobe succeeds for them. A failure shows in mount's error below.
        role.run(shell.quiet(shell.cmd("modprobe", "-a", *MODULES[fs])), timeout=60)
    role.run(shell.all_of([shell.cmd(*mkfs, node) + " >/dev/null", shell.cmd("mkdir", "-p", mountpoint)]), timeout=300)
    mount(role, node, fs, mountpoint, options)
    try:
        yield mountpoint
    finally:
        unmount(role, mountpoint)


def mount(role: Role, node: str, fs: str, mountpoint: str, options: tuple[str, ...] = ()) -> None:
    with_options = ("-o", ",".join(options)) if options else ()
    role.run(shell.cmd("mount", "-t", fs, *with_options, node, mountpoint), timeout=60)


def unmount(role: Role, mountpoint: str) -> None:
    """Unmount before the gadget goes away; a board already marked for a power cycle is left to it."""
    if role.suspect_reason is not None:
        log.warning("%s: %s left mounted for the power cycle (%s)", role.label, mountpoint, role.suspect_reason)
        return
    exitcode, output = role.run_status(shell.cmd("umount", mountpoint), timeout=120)
    if exitcode != 0:
        # Busy (a dd cut short): detach it so the gadget's removal does not leave a dead mount behind.
        role.run_status(shell.cmd("umount", "-l", mountpoint), timeout=60)
        log.warning("%s: umount %s failed (%s), detached it lazily", role.label, mountpoint, output.strip()[:200])
