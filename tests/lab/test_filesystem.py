"""hil.lab.storage.filesystem's readings of /proc, on the files a kernel really wrote (tests/data/proc)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.errors import Unavailable
from hil.lab.storage import filesystem

DATA = Path(__file__).resolve().parents[1] / "data" / "proc"


def test_the_kernels_filesystems_are_read_with_and_without_nodev():
    found = filesystem.kernel_filesystems((DATA / "filesystems.txt").read_text())
    assert {"ext4", "ext2", "sysfs", "tmpfs"} <= found
    assert "f2fs" not in found and "nodev" not in found  # this kernel was built without f2fs


def test_the_options_the_kernel_applied_to_a_mount_are_read():
    mounts = (DATA / "mounts-ext4-nobarrier.txt").read_text()
    assert filesystem.mount_options(mounts, "/mnt/hil-nvme") == "rw,relatime,nobarrier"
    assert filesystem.mount_options(mounts, "/") == "rw,relatime,discard,resv_strict,resuid=65534,resgid=65534"


def test_the_last_mount_on_a_mountpoint_is_the_one_in_use():
    mounts = (DATA / "mounts-ext4-nobarrier.txt").read_text()
    stacked = mounts + "tmpfs /mnt/hil-nvme tmpfs rw,nosuid 0 0\n"  # a second mount over the first
    assert filesystem.mount_options(stacked, "/mnt/hil-nvme") == "rw,nosuid"


def test_a_mountpoint_with_nothing_mounted_is_an_error_showing_the_listing():
    mounts = (DATA / "mounts-ext4-nobarrier.txt").read_text()
    with pytest.raises(ValueError, match=r"nothing is mounted at /mnt/hil-msc \(/proc/mounts: 'proc /proc"):
        filesystem.mount_options(mounts, "/mnt/hil-msc")


@pytest.fixture
def loop_disk(role, tmp_path):
    """A 64 MiB loop device on this PC (root only), detached after the test."""
    if role.run_status("[ $(id -u) -eq 0 ] && command -v losetup >/dev/null")[0] != 0:
        pytest.skip("making and mounting a file system needs root and losetup on this PC")
    image = tmp_path / "disk.img"
    image.write_bytes(b"")
    role.run(f"truncate -s 64M {image}")
    node = role.run(f"losetup -f --show {image}").strip()
    yield node
    role.run_status(f"losetup -d {node}")


def test_a_filesystem_is_made_and_mounted_with_its_options_then_unmounted(role, loop_disk, tmp_path, monkeypatch):
    mkfs = filesystem.supported(role, "ext4")
    assert mkfs == filesystem.MKFS["ext4"][0]
    commands: list[str] = []
    run_status = role.run_status
    monkeypatch.setattr(role, "run_status", lambda command, **kw: commands.append(command) or run_status(command, **kw))
    mountpoint = str(tmp_path / "mnt")
    with filesystem.mounted(
        role, loop_disk, "ext4", mountpoint=mountpoint, options=("nobarrier", "noatime"), mkfs=mkfs
    ) as where:
        applied = filesystem.mount_options(role.run("cat /proc/mounts"), where)
        assert where == mountpoint and "nobarrier" in applied.split(",") and "noatime" in applied.split(",")
    with pytest.raises(ValueError, match="nothing is mounted"):
        filesystem.mount_options(role.run("cat /proc/mounts"), mountpoint)
    # supported probed the role: the mount neither looks for the mkfs nor loads the modules again
    assert commands[0].startswith("{ mkfs.ext4 -F -q -b 4096 /dev/loop")
    assert not [command for command in commands if "command -v" in command or "modprobe" in command]


def test_a_filesystem_the_pc_cannot_make_or_mount_is_named_with_why(role):
    has_mkfs = role.run_status("command -v mkfs.f2fs")[0] == 0
    in_kernel = "f2fs" in filesystem.kernel_filesystems(role.run("cat /proc/filesystems"))
    if has_mkfs and in_kernel:
        pytest.skip("this PC makes and mounts f2fs")
    with pytest.raises(Unavailable) as unavailable:
        filesystem.supported(role, "f2fs")
    assert str(unavailable.value) == f"{role.label}: " + (
        "no mkfs for f2fs (tried mkfs.f2fs)"
        if not has_mkfs
        else "the kernel has no f2fs (not in /proc/filesystems after modprobe crc32_generic f2fs)"
    )
