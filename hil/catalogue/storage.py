"""Storage on the board's PCIe root complex: an NVMe drive measured with fio as CrystalDiskMark does
(seed 002 §8 "外设 - NVME 吞吐率", §8.1.1 "fio 模拟 crystalmark").

One fio run per case feeds its rate, its IOPS and its p99 completion latency (the RND4K cases gate all
three; SEQ1M's IOPS are its rate divided by 1 MiB and say nothing more).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hil.catalogue.ceilings import PcieBus
from hil.catalogue.model import Family, Metric, Setting, lower, rate

SEED = 'seed 002 §8.1.1 "fio 模拟 crystalmark"'
CASES = {"seq1m_q32t1": "SEQ1M Q32T1 (bs 1M, queue depth 32, 1 thread)", "rnd4k_q32t1": "RND4K Q32T1 (bs 4K random)"}


def _rate(case: str, direction: str) -> Metric:
    verb = "reads" if direction == "read" else "writes"
    return rate(
        f"nvme.{case}.{direction}",
        f"{SEED}, §8.2 tables",
        f"fio {verb} the raw namespace (target=raw) or a file of its ext4/f2fs (target=ext4|f2fs), {CASES[case]}, "
        "direct I/O, libaio (psync without it)",
        ceiling=PcieBus(),
    )


def _rnd4k(direction: str) -> tuple[Metric, ...]:
    """RND4K's rate, IOPS and p99 completion latency, from one fio run."""
    return (
        _rate("rnd4k_q32t1", direction),
        rate(
            f"nvme.rnd4k_q32t1.{direction}_iops",
            f"{SEED}, §8.2 tables (IOPS (K))",
            f"I/O operations per second of the RND4K Q32T1 {direction} run",
            unit="IOPS",
            reads="iops",
        ),
        lower(
            f"nvme.rnd4k_q32t1.{direction}_p99",
            SEED,
            f"99th percentile completion latency (fio clat) of the RND4K Q32T1 {direction} run",
            unit="ms",
            reads="latency_p99",
        ),
    )


@dataclass(frozen=True)
class NvmeSettings:
    device: str
    size_mb: int
    runtime_s: int


NVME = Family(
    view=NvmeSettings,
    name="nvme",
    title="NVMe drive on the board's PCIe root complex",
    metrics=(_rate("seq1m_q32t1", "read"), _rate("seq1m_q32t1", "write"), *_rnd4k("read"), *_rnd4k("write")),
    settings=(
        Setting("nvme.device", str, "/dev/nvme0n1", "namespace fio runs on (raw: its data is overwritten)"),
        Setting(
            "nvme.size_mb", int, 1024, "span of the namespace each run covers, MiB (seed 002: 4-10 GiB)", 1, 262144
        ),
        Setting("nvme.runtime_s", int, 30, "seconds each fio run measures, after a 1 s ramp (seed 002: 180)", 1, 3600),
    ),
)

LOCAL_SEED = 'seed 000 "USB Disk 传输速率分析" step 4 (the RK3399 eMMC: dd 4K..512K, caches dropped)'


def _local(direction: str) -> Metric:
    how = "writes a file (dd, then sync: its time counted)" if direction == "write" else "reads the file back"
    return rate(
        f"storage.local.{direction}", LOCAL_SEED, f"the board {how} on its own eMMC/SD filesystem, caches dropped first"
    )


def _one_place(values: Mapping[str, Any]) -> str | None:
    device, directory = values["local.device"], values["local.dir"]
    if device and directory:  # neither: the pair does not measure its storage (the case says so if asked to)
        return (
            "set one of local.device (a block device hil formats and mounts: its data is lost) and local.dir "
            f"(a directory on a mounted eMMC/SD filesystem), not both; got device={device!r}, dir={directory!r}"
        )
    for name, path in (("local.device", device), ("local.dir", directory)):
        if path and not path.startswith("/"):
            return f"{name} ({path!r}) must be an absolute path on the board"
    return None


@dataclass(frozen=True)
class LocalSettings:
    role: str
    device: str
    dir: str
    fs: str
    module: str
    file_mb: int


LOCAL = Family(
    view=LocalSettings,
    name="storage.local",
    title="The board's own storage (eMMC, SD card) through its filesystem",
    metrics=(_local("write"), _local("read")),
    settings=(
        Setting(
            "local.role", str, "device", "role of the board whose storage it is", choices=("host", "device", "rc", "ep")
        ),
        Setting(
            "local.device", str, "", "block device hil formats (local.fs) and mounts for the run: its data is lost"
        ),
        Setting("local.dir", str, "", "directory on the board's mounted eMMC/SD filesystem (seed 000: /sdcard)"),
        Setting("local.fs", str, "ext4", "filesystem local.device is formatted with", choices=("ext4", "ext2", "vfat")),
        Setting(
            "local.module",
            str,
            "",
            "kernel module that drives the storage, loaded first (the virtual board's sdhci-pci); empty: built in",
        ),
        Setting("local.file_mb", int, 256, "bytes per dd sample, MiB (seed 000: 1 GiB)", 1, 65536),
    ),
    checks=(_one_place,),
)

FAMILIES = (NVME, LOCAL)
