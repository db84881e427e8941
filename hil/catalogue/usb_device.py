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
    ),
    settings=(
        Setting("msc.backing_mb", int, 512, "size of the LUN's backing file on the device (RAM, tmpfs), MiB", 1, 65536),
        Setting("msc.transfer_mb", int, 256, "bytes moved per dd sample, MiB", 1, 65536),
    ),
    checks=(_transfer_fits_backing_store,),
)

MTP = Family(
    name="usb.mtp",
    title="USB MTP gadget",
    metrics=(
        Metric(
            "usb.mtp.read",
            unit="MB/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbBus(Transfer.BULK),
            seed='seed 000 "USB MTP 传输速率分析", table 3-1 (Read: board -> PC)',
            description="host copies one large object off the board's MTP responder (mtp-getfile), timed on the host",
        ),
        Metric(
            "usb.mtp.write",
            unit="MB/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbBus(Transfer.BULK),
            seed='seed 000 "USB MTP 传输速率分析", table 3-1 (Write: PC -> board)',
            description="host copies one large object to the board's MTP responder (mtp-sendfile), timed on the host",
        ),
    ),
    settings=(
        Setting("mtp.object_mb", int, 256, "object moved per sample, MiB (in RAM on the virtual board)", 1, 65536),
        Setting("mtp.timeout_s", int, 600, "bound for one transfer, seconds", 10, 7200),
    ),
)

FAMILIES = (MSC, MTP)
