"""USB device mode: the board is the gadget, the host measures (seed 000 "USB Device 传输性能分析", seed 001)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hil.catalogue.ceilings import UsbBus, UsbInterrupt
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

HID_SEED = 'seed 000 "USB Gadget HID 传输速率分析" (report_length 512/1024, interval 1 ms/125 µs)'

HID = Family(
    name="usb.hid",
    title="USB HID gadget",
    metrics=(
        Metric(
            "usb.hid.in",
            unit="kB/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbInterrupt(),
            seed=HID_SEED,
            description="gadget writes numbered input reports to /dev/hidgN, host reads /dev/hidrawN (hid_throughput)",
        ),
        Metric(
            "usb.hid.out",
            unit="kB/s",
            direction=Direction.HIGHER,
            reads="throughput",
            ceiling=UsbInterrupt(),
            seed=HID_SEED,
            description="host writes output reports to /dev/hidrawN, gadget reads /dev/hidgN (hid_throughput)",
        ),
    ),
    settings=(Setting("hid.reports", int, 2000, "reports moved per sample (the first is not timed)", 2, 10_000_000),),
)

FAMILIES = (MSC, HID)
