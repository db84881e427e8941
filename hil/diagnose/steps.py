"""The findings every diagnosis shares, each one line: the CPUs during a transfer, the controller's interrupt
lines with their affinity, each role's operating point. The files they read come from
hil.measure.board_state's snapshots, keyed by path ("/proc/stat", "/proc/interrupts")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hil.diagnose import probes
from hil.lab.board.role import Role
from hil.measure import board_state, cpuload, operating_point
from hil.verdict.measurement import CpuShare

PROC_STAT, INTERRUPTS = board_state.PROC_STAT, "/proc/interrupts"


def cpu_shares(before: Mapping[str, str], after: Mapping[str, str]) -> dict[str, CpuShare]:
    return cpuload.cpu_load(cpuload.parse_stat(before[PROC_STAT]), cpuload.parse_stat(after[PROC_STAT]))


def cpu_line(shares: Mapping[str, CpuShare]) -> str:
    """Per-CPU load during the transfer, and the core at its limit if one is."""
    cores = [
        f"{name} busy {s.busy:.0f}% (irq+softirq {s.irq_softirq:.0f}%)" for name, s in shares.items() if name != "cpu"
    ]
    saturated = cpuload.saturated(shares)
    return f"CPUs during the transfer: {', '.join(cores)}" + (f"; at the limit: {saturated[0]}" if saturated else "")


def interrupt_lines(controller: probes.Controller, before: Mapping[str, str], after: Mapping[str, str]) -> list[str]:
    """The controller's interrupt lines: how often each fired on which CPU, and its affinity."""
    deltas = probes.interrupt_deltas(*(probes.parse_interrupts(side[INTERRUPTS]) for side in (before, after)))
    if not controller.irqs:
        busiest = max(((irq, sum(d)) for irq, d in deltas.items()), key=lambda item: item[1], default=None)
        other = f"; the busiest line was {busiest[0]} ({busiest[1]} interrupts)" if busiest and busiest[1] else ""
        return [f"the controller {controller.name} has no interrupt line of its own{other}"]
    lines = []
    for irq, affinity in controller.irqs.items():
        counts = deltas.get(irq)
        if counts is None:
            lines.append(f"the controller's IRQ {irq} is not in /proc/interrupts")
            continue
        spread = ", ".join(f"cpu{index} {count}" for index, count in enumerate(counts) if count)
        lines.append(
            f"the controller {controller.name}'s IRQ {irq} fired {sum(counts)} times ({spread or 'on no CPU'}), "
            f"affinity {affinity}"
        )
    return lines


def operating_points(roles: Sequence[Role]) -> list[str]:
    """Each role's operating point (read as the samples read it: hil.measure.board_state), once per role."""
    distinct = [role for index, role in enumerate(roles) if not any(role is seen for seen in roles[:index])]
    return [operating_point_line(role.name, board_state.read(role)[1]) for role in distinct]


def operating_point_line(role: str, point: operating_point.OperatingPoint) -> str:
    """CPUs offline, their clocks, the hottest zone: a slow figure's usual suspects on a board nobody tuned
    (seed 000 takes cores offline and pins the governor, seed 002 §3 fixes the frequencies)."""
    offline = sorted(cpu for cpu, up in point.online.items() if not up)
    parts = [f"{', '.join(offline)} offline" if offline else "no CPU offline"]
    clocks = sorted({khz // 1000 for cpu, khz in point.freq_khz.items() if point.online.get(cpu, True)})
    parts.append(f"clocks {'/'.join(str(mhz) for mhz in clocks)} MHz" if clocks else "no cpufreq")
    hottest = max(point.temp_c.items(), key=lambda item: item[1], default=None)
    parts.append(f"hottest {hottest[0].split()[-1]} {hottest[1]:.0f} °C" if hottest else "no thermal zone")
    return f"operating point of {role}: " + ", ".join(parts)
