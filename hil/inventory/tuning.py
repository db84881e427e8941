"""The `tuning:` block of a pair in boards.yaml: the performance profile a board is measured under.

Seed 000 (MSC: CPU frequency scaling vs. big cores fixed), seed 002 §3 (fixed CPU frequency, ASPM off)
and seed 004 (governor, cores online, socket buffers, netdev backlog) all measure a tuned board. hil
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


class TuningConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    # The roles tuned (default: all of the pair's); a lab PC shared by many pairs may be left alone.
    roles: list[Literal["host", "device", "rc", "ep"]] | None = None
    # scaling_governor of every CPU with cpufreq ("performance", seeds 000/004).
    cpu_governor: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")] | None = None
    # Fix every CPU's frequency: scaling_min_freq = scaling_max_freq = this (kHz), or the CPU's maximum.
    cpu_freq: Literal["max"] | Annotated[int, Field(gt=0)] | None = None
    # Bring offline CPUs online for the measurement (put back offline after).
    cpus_online: bool = False
    # /sys/module/pcie_aspm/parameters/policy (seed 002 §3: ASPM off = performance).
    pcie_aspm: Literal["default", "performance", "powersave", "powersupersave"] | None = None
    # /proc/sys values: net.core.rmem_max, net.core.wmem_max, net.core.netdev_max_backlog (seed 004)...
    sysctl: dict[SysctlName, SysctlValue] = Field(default_factory=dict)
