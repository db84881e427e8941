"""USB device mode: the board is the gadget, the host measures (seed 000 "USB Device 传输性能分析", seed 001)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hil.catalogue.ceilings import BULK, UsbFrames, UsbInterrupt
from hil.catalogue.cpu import CPU_SEED, cpu_busiest
from hil.catalogue.model import Family, Metric, Setting, SettingsCheck, lower, rate


def _fits_backing_store(name: str, why: str) -> SettingsCheck:
    def check(values: Mapping[str, Any]) -> str | None:
        if values[name] > values["msc.backing_mb"]:
            return f"{name} ({values[name]}) is larger than msc.backing_mb ({values['msc.backing_mb']}): {why}"
        return None

    return check


def _backing_dir_absolute(values: Mapping[str, Any]) -> str | None:
    directory = values["msc.backing_dir"]
    if not directory.startswith("/") or not directory.isprintable():
        return f"msc.backing_dir ({directory!r}) must be an absolute path on the device board"
    return None


@dataclass(frozen=True)
class MscSettings:
    backing_mb: int
    backing_dir: str
    transfer_mb: int
    fs: str
    fs_transfer_mb: int

    @property
    def backing_file(self) -> str:
        return f"{self.backing_dir.rstrip('/')}/hil-msc-lun0.img"


MSC = Family(
    view=MscSettings,
    name="usb.msc",
    title="USB mass-storage gadget",
    metrics=(
        *(
            rate(
                f"usb.msc.{op}",
                f'seed 000 "USB MSC 传输速率分析"; seed 001 ({seed})',
                f"host {op}s the gadget's raw disk with dd, O_DIRECT{how}",
                ceiling=BULK,
            )
            for op, seed, how in (
                ("read", "raw reads", ", caches dropped"),
                ("write", "sync writes", " and conv=fsync"),
            )
        ),
        rate(
            "usb.msc.hdparm.read",
            'seed 001 (raw reads: "hdparm -tT /dev/sdi", its -t)',
            "hdparm -t on the gadget's raw disk: buffered sequential reads (2 MiB requests through the page "
            "cache's readahead) for about 3 s, buffers flushed first",
            ceiling=BULK,
        ),
        cpu_busiest("usb.msc.read", seed=CPU_SEED),
        cpu_busiest("usb.msc.write", seed=CPU_SEED),
        # A filesystem's page cache, readahead and metadata sit in the path: a procedure and figures of
        # their own (seed 001 gives both), so metrics of their own rather than a setting of the raw ones.
        rate(
            "usb.msc.fs.read",
            'seed 001 "Throughput with the filesystem involved" (Linux host)',
            "host reads a file back from the gadget's disk, formatted (msc.fs) and mounted, the disk re-attached "
            "(unmounted, off the bus and on, remounted) and caches dropped before each read",
            ceiling=BULK,
        ),
        rate(
            "usb.msc.fs.write",
            'seed 001 "Throughput with the filesystem involved", synchronous transfer (sync time added)',
            "host writes a file with dd on the mounted disk, then sync: bytes / (dd time + sync time)",
            ceiling=BULK,
        ),
        # No link ceiling: dd's time alone ends when the page cache took the data, not when the link carried it.
        rate(
            "usb.msc.fs.write.async",
            'seed 001 "Throughput with the filesystem involved", asynchronous transfer (dd bs=102400, no sync)',
            "the same runs as usb.msc.fs.write, dd's time alone: bytes / dd time (the page cache's rate "
            "until it throttles, seed 001's asynchronous figure beside its synchronous one)",
            reads="async_throughput",
        ),
    ),
    settings=(
        Setting("msc.backing_mb", int, 512, "size of the LUN's backing file on the device, MiB", 1, 65536),
        Setting(
            "msc.backing_dir",
            str,
            "/tmp",
            "directory on the device board that holds the LUN's backing file: /tmp (RAM) keeps the board's storage "
            "out of the figure; a directory on its eMMC/SD (seed 000: /data) puts it in",
        ),
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
            64,  # fits the backing stores pairs set for raw dd alone (the default 512, the virtual pairs' 160)
            "size of the file each usb.msc.fs.* sample writes or reads, MiB (leave room for the filesystem)",
            1,
            65536,
        ),
    ),
    checks=(
        _fits_backing_store("msc.transfer_mb", "dd would run off the end of the disk"),
        _fits_backing_store("msc.fs_transfer_mb", "the file cannot fit on the disk"),
        _backing_dir_absolute,
    ),
)


# UVC gadget (seed 000 tables 3-3 to 3-6): the host streams >= 300 frames from the board's camera function
# and takes the frame rate from the driver's buffer timestamps. The source is not paced, so this is the
# highest rate the link carries, as the seed's tables give it.
UVC_SEED = 'seed 000 "UVC Gadget 传输配置方式", tables 3-3 to 3-6'


def _frame_metric(prefix: str, what: str, seed: str, subject: str, transfer_param: str | None = None) -> Metric:
    if what == "fps":
        return rate(
            f"{prefix}.fps",
            seed,
            f"frames per second {subject}, from V4L2 buffer timestamps (first to last of >= 300 frames)",
            ceiling=UsbFrames(transfer_param=transfer_param),
            unit="fps",
            reads="fps",
            needs=(f"{prefix}.corrupt",),
        )
    return lower(
        f"{prefix}.{what}",
        seed,
        {
            "dropped": f"frames lost between the first and the last frame {subject} (V4L2 sequence number gaps)",
            "corrupt": f"frames {subject} flagged bad, of a wrong size (YUYV) or without SOI/EOI markers (MJPEG)",
        }[what],
        unit="frames",
        reads=what,
        check_cv=False,  # 0 in a healthy run: its spread says nothing about stability
    )


@dataclass(frozen=True)
class UvcSettings:
    frames: int
    frame_timeout_s: int
    bulk: bool
    gadgetfs: bool


UVC = Family(
    view=UvcSettings,
    name="usb.uvc",
    title="USB UVC camera gadget",
    metrics=tuple(
        _frame_metric("usb.uvc", what, UVC_SEED, "received by the host", "transfer")
        for what in ("fps", "dropped", "corrupt")
    ),
    settings=(
        Setting("uvc.frames", int, 300, "frames streamed per sample (the issue asks for >= 300)", 300, 1_000_000),
        Setting(
            "uvc.frame_timeout_s", int, 10, "seconds the host waits for any one frame before it is an error", 1, 600
        ),
        Setting(
            "uvc.bulk",
            bool,
            False,
            "the device kernel's f_uvc has the vendor's bulk streaming attribute `streaming_bulk` (mainline has none)",
        ),
        Setting(
            "uvc.gadgetfs",
            bool,
            False,
            "`transfer=bulk` streams from hil's GadgetFS bulk camera (uvc_gadgetfs, high speed at most) instead of "
            "f_uvc: the way a UDC without isochronous endpoints (the virtual lab's dummy_hcd) carries UVC frames",
        ),
    ),
)

HID_SEED = 'seed 000 "USB Gadget HID 传输速率分析" (report_length 512/1024, interval 1 ms/125 µs)'


@dataclass(frozen=True)
class HidSettings:
    reports: int


HID = Family(
    view=HidSettings,
    name="usb.hid",
    title="USB HID gadget",
    metrics=tuple(
        rate(f"usb.hid.{way}", HID_SEED, what, ceiling=UsbInterrupt(), unit="kB/s")
        for way, what in (
            ("in", "gadget writes numbered input reports to /dev/hidgN, host reads /dev/hidrawN (hid_throughput)"),
            ("out", "host writes output reports to /dev/hidrawN, gadget reads /dev/hidgN (hid_throughput)"),
        )
    ),
    settings=(Setting("hid.reports", int, 2000, "reports moved per sample (the first is not timed)", 2, 10_000_000),),
)


@dataclass(frozen=True)
class MtpSettings:
    object_mb: int
    timeout_s: int


MTP = Family(
    view=MtpSettings,
    name="usb.mtp",
    title="USB MTP gadget",
    metrics=(
        rate(
            "usb.mtp.read",
            'seed 000 "USB MTP 传输速率分析", table 3-1 (Read: board -> PC)',
            "host copies one large object off the board's MTP responder (mtp-getfile), timed on the host",
            ceiling=BULK,
        ),
        rate(
            "usb.mtp.write",
            'seed 000 "USB MTP 传输速率分析", table 3-1 (Write: PC -> board)',
            "host copies one large object to the board's MTP responder (mtp-sendfile), timed on the host",
            ceiling=BULK,
        ),
    ),
    settings=(
        Setting("mtp.object_mb", int, 256, "object moved per sample, MiB (in RAM on the virtual board)", 1, 65536),
        Setting("mtp.timeout_s", int, 600, "bound for one transfer, seconds", 10, 7200),
    ),
)

FAMILIES = (MSC, UVC, HID, MTP)
