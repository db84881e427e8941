"""The `tuning:` block of a pair in boards.yaml: the performance profile a board is measured under.

Seed 000 (MSC: CPU frequency scaling vs. big cores fixed), seed 002 §3 (fixed CPU frequency, ASPM off)
and seed 004 (governor, cores online, socket buffers, netdev backlog, RPS masks) all measure a tuned board. hil
applies the profile on the pair's roles before each measurement and restores it after
(hil.lab.board.tuning); what a board cannot do (no cpufreq under QEMU TCG) is recorded, not an error.

Every value reaches a shell on the board: names and values are restricted to plain characters here and
quoted again when the command is built.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

# net.core.rmem_max -> /proc/sys/net/core/rmem_max: dotted words only (no '/', no '..').
SysctlName = Annotated[str, Field(pattern=r"^[a-z0-9_]+(?:\.[a-z0-9_-]+)+$")]
# A number, or words of digits and letters such as tcp_rmem's "4096 131072 6291456".
SysctlValue = int | Annotated[str, Field(pattern=r"^[A-Za-z0-9_.:-]+(?: [A-Za-z0-9_.:-]+)*$")]

# A Linux interface name (at most 15 characters, no '/'): rmnet_usb0.1, usb0, eth0.
InterfaceName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.:-]{1,15}$")]
# A CPU mask as sysfs writes it: hex words, comma-separated on machines with more than 32 CPUs.
CpuMask = Annotated[str, Field(pattern=r"^[0-9a-fA-F]{1,8}(?:,[0-9a-fA-F]{1,8})*$")]

# A block device name or a shell glob of them: sda, sd*, nvme0n1, mmcblk[0-9].
BlockName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_*?\[\]-]{1,32}$")]
# A devfreq device under /sys/class/devfreq (dmc: Rockchip's DDR controller), or a glob of them.
DevfreqName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.:*?-]{1,64}$")]


class BlockQueueTuning(BaseModel):
    """A disk's request queue (seeds 000/001 quote and tune them beside dd): /sys/block/<disk>/queue/."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # The I/O scheduler: none, mq-deadline, bfq, kyber (what the kernel offers: others are refused).
    scheduler: Annotated[str, Field(pattern=r"^[a-z0-9_-]+$")] | None = None
    # The largest request the kernel sends (KiB); the kernel refuses more than max_hw_sectors_kb.
    max_sectors_kb: Annotated[int, Field(gt=0)] | None = None


class DevfreqTuning(BaseModel):
    """A devfreq device (DDR, GPU, NPU): seed 000 fixes the DDR frequency before measuring MSC."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # The device's governor (performance, userspace: what its `available_governors` lists).
    governor: Annotated[str, Field(pattern=r"^[a-z0-9_-]+$")] | None = None
    # Fix the frequency: min_freq = max_freq = this (Hz), or the device's highest available frequency.
    freq: Literal["max"] | Annotated[int, Field(gt=0)] | None = None


class TuningConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    # The roles tuned (default: all of the pair's); a lab PC shared by many pairs may be left alone.
    roles: list[Literal["host", "device", "rc", "ep"]] | None = None
    # A knob the board does not have, or a value its kernel refuses: `record` it in the result's facts and
    # measure anyway, `skip` the case (its figures would not be the profile's), or stop it with an `error`.
    unavailable: Literal["record", "skip", "error"] = "record"
    # scaling_governor of every CPU with cpufreq ("performance", seeds 000/004).
    cpu_governor: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")] | None = None
    # Fix every CPU's frequency: scaling_min_freq = scaling_max_freq = this (kHz), or the CPU's maximum.
    cpu_freq: Literal["max"] | Annotated[int, Field(gt=0)] | None = None
    # Bring offline CPUs online for the measurement (put back offline after).
    cpus_online: bool = False
    # Take these CPUs offline for it (seed 000: RK3399's little cores 0-3, the big ones at a fixed speed), back
    # online after; cpus_online then brings the others online. Their cpufreq is left alone.
    cpus_offline: list[Annotated[int, Field(ge=0, le=4095)]] = Field(default_factory=list)
    # /sys/module/pcie_aspm/parameters/policy (seed 002 §3: ASPM off = performance).
    pcie_aspm: Literal["default", "performance", "powersave", "powersupersave"] | None = None
    # /proc/sys values: net.core.rmem_max, net.core.wmem_max, net.core.netdev_max_backlog (seed 004)...
    sysctl: dict[SysctlName, SysctlValue] = Field(default_factory=dict)
    # Receive packet steering per interface (seed 004: `echo 80 > /sys/class/net/rmnet_usb0.1/queues/rx-0/rps_cpus`
    # puts its receive work on cpu7): a hex CPU mask written to every rx queue of the interface.
    rps_cpus: dict[InterfaceName, CpuMask] = Field(default_factory=dict)
    # Per disk (or glob of disks) present when the measurement starts: scheduler and max_sectors_kb.
    block_queue: dict[BlockName, BlockQueueTuning] = Field(default_factory=dict)
    # Per devfreq device (or glob): governor and a fixed frequency.
    devfreq: dict[DevfreqName, DevfreqTuning] = Field(default_factory=dict)
