"""What the diagnosis reads on a role around a transfer, and a parser for each file (real outputs in
tests/data/diagnose): the block layer's counters, /proc/interrupts and the interrupt lines of a device's
controller, /proc/softirqs (NET_RX: where the kernel ran the receive path) and /proc/net/snmp's UDP counters.
Files read around a transfer come in one command as sections (hil.measure.board_state).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import takewhile

from hil.lab.board import shell
from hil.measure.parsing import ascii_int, without_kernel_messages
from hil.verdict.errors import ParseError

SECTOR = 512  # /sys/block/*/stat counts 512-byte sectors whatever the disk's own sector size


@dataclass(frozen=True)
class BlockStat:
    """The read and write counters of /sys/block/<disk>/stat (Documentation/block/stat.rst): sectors over
    requests is the merged request size."""

    read_ios: int
    read_sectors: int
    write_ios: int
    write_sectors: int

    def kib_per_request(self, before: BlockStat, direction: str) -> float | None:
        ios, sectors = (
            (self.read_ios - before.read_ios, self.read_sectors - before.read_sectors)
            if direction == "read"
            else (self.write_ios - before.write_ios, self.write_sectors - before.write_sectors)
        )
        return sectors * SECTOR / 1024 / ios if ios > 0 else None


def parse_block_stat(text: str) -> BlockStat:
    fields = without_kernel_messages(text).split()
    if len(fields) < 11:
        raise ParseError(f"/sys/block/*/stat has {len(fields)} fields, not at least 11", text)
    values = [ascii_int(field, "a block stat counter", text) for field in fields]
    return BlockStat(read_ios=values[0], read_sectors=values[2], write_ios=values[4], write_sectors=values[6])


@dataclass(frozen=True)
class InterruptLine:
    counts: tuple[int, ...]  # per CPU column of /proc/interrupts
    name: str  # the rest of the line: chip, trigger, handler names


def parse_interrupts(text: str) -> dict[str, InterruptLine]:
    """/proc/interrupts: IRQ (a number or a name such as LOC) -> its per-CPU counts and its description."""
    lines = [line for line in without_kernel_messages(text).splitlines() if line.strip()]
    if not lines or not lines[0].split() or not all(re.fullmatch(r"CPU[0-9]+", c) for c in lines[0].split()):
        raise ParseError("/proc/interrupts does not start with its CPU header", text)
    columns = len(lines[0].split())
    found = {}
    for line in lines[1:]:
        irq, _, rest = line.partition(":")
        words = rest.split()
        counts = [ascii_int(w, f"IRQ {irq.strip()} count", text) for w in takewhile(str.isdigit, words[:columns])]
        if not counts:  # ERR:/MIS: carry one total, not per-CPU counts: not a line a CPU handles
            continue
        found[irq.strip()] = InterruptLine(tuple(counts), " ".join(words[len(counts) :]))
    if not found:
        raise ParseError("/proc/interrupts lists no interrupt", text)
    return found


def interrupt_deltas(
    before: Mapping[str, InterruptLine], after: Mapping[str, InterruptLine]
) -> dict[str, tuple[int, ...]]:
    return {
        irq: tuple(b - a for a, b in zip(before[irq].counts, line.counts, strict=True))
        for irq, line in after.items()
        if irq in before and len(before[irq].counts) == len(line.counts)
    }


def controller_script(node: str) -> str:
    """The controller of the disk at device node `node` (see `_controller_walk`)."""
    return (
        f"n={shell.quote(node)}; "
        'p=$(readlink -f "/sys/class/block/$(basename "$(readlink -f "$n")")/device"); ' + _controller_walk()
    )


def interface_controller_script(ifname: str) -> str:
    """The controller of the network interface `ifname` (see `_controller_walk`)."""
    return f"p=$(readlink -f {shell.quote(f'/sys/class/net/{ifname}/device')}); " + _controller_walk()


def _controller_walk() -> str:
    """From the sysfs device in $p, prints `controller PATH` and one `irq N AFFINITY` per interrupt line of its
    controller: the first device above it with interrupts of its own (PCI MSI vectors or an `irq`), else the
    device above its USB bus, else the device itself (a software controller such as dummy_hcd has none)."""
    return (
        'f=$p; c=; u=; while [ -n "$p" ] && [ "$p" != /sys/devices ] && [ "$p" != / ]; do '
        'case "${p##*/}" in usb[0-9]*) [ -n "$u" ] || u=${p%/*};; esac; '
        '{ [ -d "$p/msi_irqs" ] || { [ -r "$p/irq" ] && [ "$(cat "$p/irq")" != 0 ]; }; } && { c=$p; break; }; '
        'p=${p%/*}; done; c=${c:-${u:-${f:-none}}}; echo "controller $c"; '
        'for i in $(ls "$c/msi_irqs" 2>/dev/null || cat "$c/irq" 2>/dev/null); do [ "$i" = 0 ] && continue; '
        'echo "irq $i $(cat /proc/irq/$i/smp_affinity_list 2>/dev/null || echo -)"; done; true'
    )


@dataclass(frozen=True)
class Controller:
    path: str  # its sysfs directory
    irqs: dict[str, str]  # IRQ number -> smp_affinity_list

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1] or self.path


def parse_controller(text: str) -> Controller:
    path, irqs = "", {}
    for line in without_kernel_messages(text).splitlines():
        words = line.split()
        if words[:1] == ["controller"] and len(words) == 2:
            path = words[1]
        elif words[:1] == ["irq"] and len(words) == 3 and words[1].isdigit():
            irqs[words[1]] = words[2]
    if not path:
        raise ParseError("the controller probe printed no `controller` line", text)
    return Controller(path, irqs)


def parse_softirqs(text: str) -> dict[str, tuple[int, ...]]:
    """/proc/softirqs: kind (NET_RX, TIMER, ...) -> its per-CPU counts."""
    lines = [line for line in without_kernel_messages(text).splitlines() if line.strip()]
    if not lines or not all(re.fullmatch(r"CPU[0-9]+", c) for c in lines[0].split()):
        raise ParseError("/proc/softirqs does not start with its CPU header", text)
    found = {}
    for line in lines[1:]:
        kind, _, rest = line.partition(":")
        found[kind.strip()] = tuple(ascii_int(word, f"{kind.strip()} count", text) for word in rest.split())
    if "NET_RX" not in found:
        raise ParseError("/proc/softirqs has no NET_RX line", text)
    return found


def parse_snmp(text: str, protocol: str = "Udp") -> dict[str, int]:
    """/proc/net/snmp's counters of one protocol: a header line of names, then one of values."""
    rows = [line.split()[1:] for line in without_kernel_messages(text).splitlines() if line.startswith(f"{protocol}:")]
    if len(rows) < 2 or len(rows[0]) != len(rows[1]):
        raise ParseError(f"/proc/net/snmp has no {protocol} header and values of one length", text)
    return {name: ascii_int(value, f"{protocol} {name}", text) for name, value in zip(rows[0], rows[1], strict=True)}
