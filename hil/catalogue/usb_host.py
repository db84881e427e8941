"""USB host mode: the board is the USB host, a disk is plugged into it (seed 000 "USB Host 传输性能分析",
"USB Disk 传输速率分析"), and the time a USB device on the board takes to resume (seed 003).

The disk is measured on its raw block device with dd, O_DIRECT (caches dropped first, conv=fsync on
writes), so no page cache can serve it whatever the board's RAM; and, as the seed's first method, by
copying a file with cp between a filesystem on the disk and a directory of the board.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hil.catalogue.ceilings import BULK
from hil.catalogue.model import Family, Setting, lower, rate
from hil.verdict.spec import Floor

DISK_SEED = 'seed 000 "USB Disk 传输速率分析" (方法 2: dd)'
CP_SEED = 'seed 000 "USB Disk 传输速率分析" (方法 1: cp); seed 001 (sync time added)'
TOGETHER_SEED = 'seed 000 "USB Disk 传输速率分析" (方法 2: dd; Note: test several USB3 disks), on all of them at once'
PC_SEED = 'seed 000 "USB Disk 传输速率分析" (方法 2: dd; Note: test the same USB3 disk on a PC for comparison)'
VFAT_MAX_FILE_MB = 4095  # FAT32 holds files up to 4 GiB - 1 byte


def _copy_file_fits(values: Mapping[str, Any]) -> str | None:
    if values["disk.fs"] == "vfat" and values["disk.cp_file_mb"] > VFAT_MAX_FILE_MB:
        return (
            f"disk.cp_file_mb ({values['disk.cp_file_mb']}) is larger than vfat's largest file "
            f"({VFAT_MAX_FILE_MB} MiB): choose disk.fs ext4 or a smaller file"
        )
    if not values["disk.cp_dir"].startswith("/"):
        return f"disk.cp_dir ({values['disk.cp_dir']!r}) must be an absolute path on the board"
    return None


def _together_are_other_disks(values: Mapping[str, Any]) -> str | None:
    serials = [values["disk.serial"], *values["disk.together"].split()]
    if len(serials) > 1 and len(set(serials)) != len(serials):
        return f"disk.together ({values['disk.together']!r}) names a disk twice, or disk.serial's"
    if len(serials) > 1 and not values["disk.serial"]:
        return "disk.together names further disks: set disk.serial too (the first of them)"
    return None


@dataclass(frozen=True)
class DiskSettings:
    serial: str
    protocol: str
    transfer_mb: int
    fs: str
    cp_file_mb: int
    cp_dir: str
    together: str
    pc_serial: str

    @property
    def serials(self) -> list[str]:
        """Every disk of the pair: disk.serial's, then disk.together's."""
        return [self.serial, *self.together.split()]

    @property
    def on_the_pc(self) -> str:
        """The serial of the disk usb.disk.pc.* measures on the lab PC: disk.pc_serial's, else disk.serial's."""
        return self.pc_serial or self.serial


DISK = Family(
    view=DiskSettings,
    name="usb.disk",
    title="USB disk on the board (the board is the USB host)",
    metrics=(
        *(
            rate(
                f"usb.disk.{op}",
                DISK_SEED,
                f"board {op}s the USB disk's raw device with dd, O_DIRECT{how}; UAS or BOT recorded",
                ceiling=BULK,
            )
            for op, how in (("read", ", caches dropped"), ("write", " and conv=fsync"))
        ),
        # Filesystems on both sides and cp's own block size sit in the path (the seed's "actual" copy rate,
        # compared with dd's when it falls short): metrics of their own, as usb.msc.fs.* beside usb.msc.*.
        rate(
            "usb.disk.cp.read",
            CP_SEED,
            "board copies a file with cp from the USB disk (formatted disk.fs, mounted) into disk.cp_dir, "
            "caches dropped: bytes / (cp time + sync time), timed on the board; UAS or BOT recorded",
            ceiling=BULK,
        ),
        rate(
            "usb.disk.cp.write",
            CP_SEED,
            "board copies a file with cp from disk.cp_dir onto the USB disk's filesystem, caches dropped: "
            "bytes / (cp time + sync time), timed on the board; UAS or BOT recorded",
            ceiling=BULK,
        ),
        # Several disks on one host at once: each disk's rate (parameter disk=<serial>) and the host's sum.
        # No ceiling: the disks may hang on different controllers, and each dd's own figure is a bus share.
        *(
            rate(
                f"usb.disk.together.{op}",
                TOGETHER_SEED,
                f"one disk's rate (disk=<serial>) while the board {op}s every disk of disk.serial and "
                f"disk.together at once, as usb.disk.{op} does: bytes / that dd's own seconds",
            )
            for op in ("read", "write")
        ),
        *(
            rate(
                f"usb.disk.together.total.{op}",
                TOGETHER_SEED,
                f"the host's aggregate: all disks' bytes / the board's clock from the first dd's start "
                f"to the last one's end{fsync}",
            )
            for op, fsync in (("read", ""), ("write", " (conv=fsync: the writes are on the disks)"))
        ),
        # The same disk on the lab PC (the pair's peer role): what the disk gives without the board's USB path.
        # No ceiling: the PC's port is not the pair's link (its speed is checked to be the same).
        *(
            rate(
                f"usb.disk.pc.{op}",
                PC_SEED,
                f"the lab PC (the pair's peer) {op}s the same disk (disk.pc_serial, else disk.serial) as "
                f"usb.disk.{op} does on the board: raw device, dd, O_DIRECT{how}",
            )
            for op, how in (("read", ", caches dropped"), ("write", " and conv=fsync"))
        ),
    ),
    settings=(
        Setting("disk.serial", str, "", "USB serial number (sysfs `serial`) of the disk on the board"),
        Setting(
            "disk.protocol",
            str,
            "any",
            "driver the disk's interface must be bound to: uas, usb-storage (Bulk-Only) or any",
            choices=("any", "uas", "usb-storage"),
        ),
        Setting(
            "disk.transfer_mb", int, 256, "bytes moved per dd sample, MiB (raw device: its data is lost)", 1, 65536
        ),
        Setting(
            "disk.fs",
            str,
            "vfat",
            "filesystem the board formats the USB disk with for usb.disk.cp.* (its data is lost)",
            choices=("vfat", "ext2", "ext4"),
        ),
        Setting(
            "disk.cp_file_mb",
            int,
            1024,  # seed 000 copies a 1 GiB file (2 GiB on a board with 4 GiB of RAM)
            "size of the random file each usb.disk.cp.* sample copies, MiB",
            1,
            65536,
        ),
        Setting(
            "disk.cp_dir",
            str,
            "/tmp",
            "board directory the file is copied from (write) and into (read): on tmpfs (RAM) the board's storage "
            "stays out of the figure, on its eMMC (seed 000: /sdcard) it is in it; its filesystem is recorded",
        ),
        Setting(
            "disk.together",
            str,
            "",
            "USB serial numbers of the board's further USB disks, space-separated: usb.disk.together.* reads or "
            "writes them and disk.serial's at the same time (raw devices: their data is lost)",
        ),
        Setting(
            "disk.pc_serial",
            str,
            "",
            "USB serial number of an identical disk kept on the lab PC (the pair's peer) for usb.disk.pc.*; empty: "
            "disk.serial's, the board's disk moved to the lab PC (raw device: its data is lost)",
        ),
    ),
    checks=(_copy_file_fits, _together_are_other_disks),
)

# Seed 003: the host drives resume signalling for at least TDRSMDN and the device gets TRSMRCY to recover
# before it is used. Linux pads TDRSMDN to 40 ms (USB_RESUME_TIMEOUT), so a stock kernel's runtime resume
# takes 50 ms and more; below 30 ms the host cut the signalling short of the spec. usbcore waits the same on a
# SuperSpeed port (the virtual board's disk: 69.8 ms median, 2026-11-25), so the floor holds there too.
USB2_RESUME = Floor(30.0, "ms", "USB 2.0 §7.1.7.7: resume signalling TDRSMDN >= 20 ms, then recovery TRSMRCY 10 ms")


@dataclass(frozen=True)
class ResumeSettings:
    serial: str
    autosuspend_ms: int
    sleep: str
    wake_s: int


RESUME = Family(
    view=ResumeSettings,
    name="usb.resume",
    title="USB resume on the board: runtime, and with the whole board suspended",
    metrics=(
        lower(
            "usb.resume.time",
            "seed 003 (USB resume timing: tdrsmdn, trsmrcy, trstrcy)",
            "runtime resume of an autosuspended USB device: rpm_resume to its return (rpm tracepoints)",
            unit="ms",
            reads="resume_time",
            floor=USB2_RESUME,
        ),
        # No floor: after a suspend to RAM the host controller may have lost power, and the device is
        # then reset (reset-resume), not resumed: USB 2.0's resume signalling is not what is timed.
        lower(
            "usb.resume.system",
            "seed 003 (USB resume timing), with the board suspended and woken by its RTC (rtcwake)",
            "the USB device's resume callback while the whole board resumes from `resume.sleep`, "
            "woken by its RTC: usb_dev_resume's time as the kernel logs it (pm_print_times)",
            unit="ms",
            reads="system_resume",
            suspends_board=True,
        ),
    ),
    settings=(
        Setting("resume.serial", str, "", "USB serial number (sysfs `serial`) of the device to suspend and resume"),
        Setting("resume.autosuspend_ms", int, 100, "autosuspend delay set on the device and its subtree, ms", 0, 60000),
        Setting(
            "resume.sleep",
            str,
            "deep",
            "system sleep state of usb.resume.system (/sys/power/mem_sleep): deep (suspend to RAM) or s2idle",
            choices=("deep", "s2idle"),
        ),
        Setting("resume.wake_s", int, 3, "seconds the board sleeps before its RTC alarm wakes it", 2, 600),
    ),
)

FAMILIES = (DISK, RESUME)
