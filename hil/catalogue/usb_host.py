"""USB host mode: the board is the USB host, a disk is plugged into it (seed 000 "USB Host 传输性能分析",
"USB Disk 传输速率分析"), and the time a USB device on the board takes to resume (seed 003).

The disk is measured on its raw block device with dd, O_DIRECT (caches dropped first, conv=fsync on
writes), so no page cache can serve it whatever the board's RAM.
"""

from __future__ import annotations

from hil.catalogue.ceilings import UsbBus
from hil.catalogue.model import Family, Metric, Setting
from hil.verdict.ceilings import Transfer
from hil.verdict.spec import Direction

DISK_SEED = 'seed 000 "USB Disk 传输速率分析" (方法 2: dd)'

DISK = Family(
    name="usb.disk",
    title="USB disk on the board (the board is the USB host)",
    metrics=(
        Metric(
            "usb.disk.read",
            unit="MB/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbBus(Transfer.BULK),
            seed=DISK_SEED,
            description="board reads the USB disk's raw device with dd, O_DIRECT, caches dropped; UAS or BOT recorded",
        ),
        Metric(
            "usb.disk.write",
            unit="MB/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbBus(Transfer.BULK),
            seed=DISK_SEED,
            description="board writes the USB disk's raw device with dd, O_DIRECT and conv=fsync; UAS or BOT recorded",
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
    ),
)

RESUME = Family(
    name="usb.resume",
    title="USB runtime resume on the board",
    metrics=(
        Metric(
            "usb.resume.time",
            unit="ms",
            direction=Direction.LOWER,
            reads="resume_time",
            seed="seed 003 (USB resume timing: tdrsmdn, trsmrcy, trstrcy)",
            description="runtime resume of an autosuspended USB device: rpm_resume to its return (rpm tracepoints)",
        ),
    ),
    settings=(
        Setting("resume.serial", str, "", "USB serial number (sysfs `serial`) of the device to suspend and resume"),
        Setting("resume.autosuspend_ms", int, 100, "autosuspend delay set on the device and its subtree, ms", 0, 60000),
    ),
)

FAMILIES = (DISK, RESUME)
