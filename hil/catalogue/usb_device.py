"""USB device mode: the board is the gadget, the host measures (seed 000 "USB Device 传输性能分析", seed 001)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hil.catalogue.ceilings import UsbBus
from hil.catalogue.model import Family, Metric, Setting
from hil.verdict.ceilings import Transfer
from hil.verdict.spec import Direction


def _transfer_fits_backing_store(values: Mapping[str, Any]) -> str | None:
    if values["msc.transfer_mb"] > values["msc.backing_mb"]:
        return (
            f"msc.transfer_mb ({values['msc.transfer_mb']}) is larger than msc.backing_mb "
            f"({values['msc.backing_mb']}): dd would run off the end of the disk"
        )
    return None


def _file_fits_backing_store(values: Mapping[str, Any]) -> str | None:
    if values["msc.fs_transfer_mb"] > values["msc.backing_mb"]:
        return (
            f"msc.fs_transfer_mb ({values['msc.fs_transfer_mb']}) is larger than msc.backing_mb "
            f"({values['msc.backing_mb']}): the file cannot fit on the disk"
        )
    return None


MSC = Family(
    name="usb.msc",
    title="USB mass-storage gadget",
    metrics=(
        Metric(
            "usb.msc.read",
            unit="MB/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbBus(Transfer.BULK),
            seed='seed 000 "USB MSC 传输速率分析"; seed 001 (raw reads)',
            description="host reads the gadget's raw disk with dd, O_DIRECT, caches dropped",
        ),
        Metric(
            "usb.msc.write",
            unit="MB/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbBus(Transfer.BULK),
            seed='seed 000 "USB MSC 传输速率分析"; seed 001 (sync writes)',
            description="host writes the gadget's raw disk with dd, O_DIRECT and conv=fsync",
        ),
        # A filesystem's page cache, readahead and metadata sit in the path: a procedure and figures of
        # their own (seed 001 gives both), so metrics of their own rather than a setting of the raw ones.
        Metric(
            "usb.msc.fs.read",
            unit="MB/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbBus(Transfer.BULK),
            seed='seed 001 "Throughput with the filesystem involved" (Linux host)',
            description="host reads a file back from the gadget's disk, formatted (msc.fs) and mounted, caches dropped",
        ),
        Metric(
            "usb.msc.fs.write",
            unit="MB/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbBus(Transfer.BULK),
            seed='seed 001 "Throughput with the filesystem involved", synchronous transfer (sync time added)',
            description="host writes a file with dd on the mounted disk, then sync: bytes / (dd time + sync time)",
        ),
    ),
    settings=(
        Setting("msc.backing_mb", int, 512, "size of the LUN's backing file on the device (RAM, tmpfs), MiB", 1, 65536),
        Setting("msc.transfer_mb", int, 256, "bytes moved per dd sample, MiB", 1, 65536),
        Setting(
            "msc.fs",
            str,
            "vfat",
            "filesystem the host formats the disk with for usb.msc.fs.* (its data is lost)",
            choices=("vfat", "ext2", "ext4"),
        ),
        Setting(
            "msc.fs_transfer_mb",
            int,
            256,
            "size of the file each usb.msc.fs.* sample writes or reads, MiB (leave room for the filesystem)",
            1,
            65536,
        ),
    ),
    checks=(_transfer_fits_backing_store, _file_fits_backing_store),
)

FAMILIES = (MSC,)
