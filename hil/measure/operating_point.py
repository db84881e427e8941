"""The board's operating point before and after each sample: what must not move while a figure is taken.

Seeds 000 and 002 fix cores, clocks and ASPM before measuring: a sample during which a core went offline, the
clock changed, the SoC throttled, a PCIe link retrained or an AER error was counted is not a figure of the
board as declared. One command reads it all from sysfs (skipping what the board lacks; hil.measure.board_state):

    online cpuN 0|1                          /sys/devices/system/cpu/cpuN/online (cpu0 often has none)
    freq cpuN KHZ                            cpufreq's scaling_cur_freq
    throttle cpuN NAME COUNT                 x86 thermal_throttle counters
    temp ZONE TYPE MILLI_C                   /sys/class/thermal/thermal_zone*/temp
    link BDF SPEED WIDTH                     a PCIe device's current link
    aer BDF KIND TOTAL                       its AER counters (aer_dev_correctable, ...)
    usb_resets N                             'reset ... USB device' lines in the kernel log
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hil.measure.parsing import ascii_int, parser, without_kernel_messages
from hil.verdict.errors import ParseError
from hil.verdict.measurement import OperatingPointChange
from hil.verdict.result import Sample

if TYPE_CHECKING:
    from hil.lab.board.role import Role

# Fields are single words (link speeds' spaces replaced); 'end' proves the output was not cut. Values are read
# with the shell's `read`, not `cat`: on a TCG board every fork costs, before and after every sample (501 -> 436
# ms on the virtual board). A runtime-suspended PCI device is skipped: reading its link would wake it. No
# comments inside: every byte crosses the console.
SCRIPT = r"""cd /sys/devices/system/cpu && for c in cpu[0-9]*; do
  [ -r $c/online ] && read -r v < $c/online && echo "online $c $v"
  [ -r $c/cpufreq/scaling_cur_freq ] && read -r v < $c/cpufreq/scaling_cur_freq && echo "freq $c $v"
  for t in $c/thermal_throttle/*_count; do [ -r $t ] && read -r v < $t && echo "throttle $c ${t##*/} $v"; done
done
for z in /sys/class/thermal/thermal_zone*; do
  [ -r $z/temp ] && echo "temp ${z##*/} $(tr -c 'A-Za-z0-9_\n-' _ < $z/type) $(cat $z/temp 2>/dev/null)"
done
for d in /sys/bus/pci/devices/*; do
  s=; read -r s < $d/power/runtime_status; [ "$s" = suspended ] && continue
  if [ -r $d/current_link_speed ] && read -r sp < $d/current_link_speed && read -r w < $d/current_link_width; then
    set -- $sp; sp=$1; shift; for x; do sp=${sp}_$x; done; echo "link ${d##*/} $sp $w"
  fi
  for a in aer_dev_correctable aer_dev_nonfatal aer_dev_fatal; do
    [ -r $d/$a ] && while read -r k n; do case $k in TOTAL*) echo "aer ${d##*/} $a $n";; esac; done < $d/$a
  done
done 2>/dev/null
echo "usb_resets $(dmesg 2>/dev/null | grep -c 'reset .*USB device')"
echo end"""

_LINE = re.compile(r"^(online|freq|throttle|temp|link|aer|usb_resets)((?: [!-~]+)+)$")  # printable ASCII words
_ARITY = {"online": 2, "freq": 2, "throttle": 3, "temp": 3, "link": 3, "aer": 3, "usb_resets": 1}
FREQ_TOLERANCE = 0.01  # a cpufreq reading within 1% is the same operating point (rounding of the driver)


@dataclass
class OperatingPoint:
    online: dict[str, bool] = field(default_factory=dict)
    freq_khz: dict[str, int] = field(default_factory=dict)
    throttles: dict[str, int] = field(default_factory=dict)  # "cpu0 core_throttle_count" -> count
    temp_c: dict[str, float] = field(default_factory=dict)  # "thermal_zone0 soc-thermal" -> degrees C
    links: dict[str, str] = field(default_factory=dict)  # BDF -> "8.0_GT/s_PCIe x4"
    aer: dict[str, int] = field(default_factory=dict)  # "BDF aer_dev_correctable" -> total
    usb_resets: int = 0


@parser("operating_point")
def parse(text: str) -> OperatingPoint:
    """The snapshot SCRIPT prints; a line of another shape, or a missing `end`, is a ParseError."""
    lines = [line.strip() for line in without_kernel_messages(text).splitlines() if line.strip()]
    if not lines or lines[-1] != "end" or lines.count("end") != 1:
        raise ParseError("operating point: the output does not end with its 'end' line (cut short?)", text)
    point = OperatingPoint()
    seen = set()
    for line in lines[:-1]:
        match = _LINE.match(line)
        words = match.group(2).split() if match else []
        if not match or len(words) != _ARITY[match.group(1)]:
            raise ParseError(f"operating point: unexpected line {line[:80]!r}", text)
        key = (match.group(1), *words[:-1])
        if key in seen:  # two readings of one thing: two snapshots joined, or a line repeated over another
            raise ParseError(f"operating point: {' '.join(key)} given twice", text)
        seen.add(key)
        _take(point, match.group(1), words, text)
    return point


def _take(point: OperatingPoint, kind: str, words: list[str], raw: str) -> None:
    number = lambda word, what: ascii_int(word, what, raw)  # noqa: E731
    if kind == "online":
        point.online[words[0]] = number(words[1], f"{words[0]} online") == 1
    elif kind == "freq":
        point.freq_khz[words[0]] = number(words[1], f"{words[0]} frequency")
    elif kind == "throttle":
        point.throttles[f"{words[0]} {words[1]}"] = number(words[2], "throttle count")
    elif kind == "temp":  # millidegrees; below 0 °C a zone prints a minus sign
        negative = words[2].startswith("-") and len(words[2]) > 1
        degrees = number(words[2][1:] if negative else words[2], f"{words[0]} temperature") / 1000
        point.temp_c[f"{words[0]} {words[1]}"] = -degrees if negative else degrees
    elif kind == "link":
        point.links[words[0]] = f"{words[1]} x{number(words[2], f'{words[0]} link width')}"
    elif kind == "aer":
        point.aer[f"{words[0]} {words[1]}"] = number(words[2], f"{words[0]} {words[1]}")
    else:
        point.usb_resets = number(words[0], "USB resets")


def moved(before: OperatingPoint, after: OperatingPoint) -> list[str]:
    """What changed between two snapshots, one phrase each; empty: the operating point held."""
    changes = [
        f"{cpu} went {'online' if up else 'offline'}"
        for cpu, up in after.online.items()
        if before.online.get(cpu, up) != up
    ]
    changes += [f"{cpu} left the snapshot (offline or gone)" for cpu in before.online.keys() - after.online.keys()]
    for cpu, khz in after.freq_khz.items():
        was = before.freq_khz.get(cpu)
        if was is not None and abs(khz - was) > FREQ_TOLERANCE * was:
            changes.append(f"{cpu} clock moved {was / 1000:g} -> {khz / 1000:g} MHz")
    # A reading that vanished, or a counter that went down (a driver reloaded, a device reset), is not "held".
    changes += [f"{cpu} clock no longer read" for cpu in before.freq_khz.keys() - after.freq_khz.keys()]
    changes += _counted(before.throttles, after.throttles, lambda name: name.replace("_count", ""))
    changes += [
        f"PCIe {bdf} link retrained {before.links[bdf].replace('_', ' ')} -> {link.replace('_', ' ')}"
        for bdf, link in after.links.items()
        if bdf in before.links and before.links[bdf] != link
    ]
    changes += [
        f"PCIe {bdf} link gone ({before.links[bdf].replace('_', ' ')})"
        for bdf in before.links.keys() - after.links.keys()
    ]
    changes += _counted(before.aer, after.aer, lambda name: f"PCIe {name.replace('aer_dev_', 'AER ')}")
    # USB resets are read but not a move: a host tool may reset the device by design (libmtp resets it when it
    # lets go, every MTP sample); deciding on them needs to know which resets the check itself asked for.
    return changes


def _counted(before: dict[str, int], after: dict[str, int], label: Callable[[str], str]) -> list[str]:
    """A counter that rose (+N), went down (reset) or is no longer read, one phrase each."""
    found = []
    for name, was in before.items():
        now = after.get(name)
        if now is None:
            found.append(f"{label(name)} no longer read")
        elif now != was:
            found.append(f"{label(name)} +{now - was}" if now > was else f"{label(name)} went down {was} -> {now}")
    return found


def _drift(points: Sequence[tuple[int, OperatingPointChange]]) -> list[str]:
    """A CPU clock that moved from one sample to the next without moving within one (a governor stepping down
    while the tool was between samples): the samples were not taken at one operating point either."""
    found = []
    for (earlier, was), (index, now) in itertools.pairwise(points):
        for cpu, khz in now.freq_khz.items():
            before = was.freq_khz.get(cpu)
            within = any(move.startswith(f"{cpu} clock moved") for move in now.moved)
            if before is not None and abs(khz - before) > FREQ_TOLERANCE * before and not within:
                found.append(
                    f"between samples {earlier} and {index}: {cpu} clock moved {before / 1000:g} -> {khz / 1000:g} MHz"
                )
    return found


def change(role: Role, before: OperatingPoint, after: OperatingPoint) -> OperatingPointChange:
    """What moved of `role`'s operating point between two snapshots, with where it ended."""
    return OperatingPointChange(
        role=role.name, moved=moved(before, after), temp_c=after.temp_c, freq_khz=after.freq_khz
    )


def summary(samples: Sequence[Sample]) -> tuple[str, list[str]] | None:
    """The operating point over the samples for the report (clocks, temperatures), and what moved during which
    sample ("sample 3: cpu1 went offline"); None without the data."""
    points = [(index, s.observed.operating_point) for index, s in enumerate(samples, 1) if s.observed.operating_point]
    if not points:
        return None
    moves = [f"sample {index}: {change}" for index, point in points for change in point.moved]
    moves += _drift(points)
    clocks = sorted({khz // 1000 for _, point in points for khz in point.freq_khz.values()})
    temps = [temp for _, point in points for temp in point.temp_c.values()]
    role = points[0][1].role
    parts = [f"clock {clocks[0]}-{clocks[-1]} MHz" if len(clocks) > 1 else f"clock {clocks[0]} MHz"] if clocks else []
    parts += [f"hottest zone {min(temps):.0f}-{max(temps):.0f} C"] if temps else []
    held = "held" if not moves else f"moved {len(moves)} time(s)"
    return f"{role}: {', '.join([*parts, held])} over {len(points)} samples", moves
