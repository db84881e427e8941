"""A network interface's counters (sysfs `statistics/`), read before and after each sample.

Two jobs from the same reads: proof that a measurement crossed the interface (hil.measure.netpath), and the
link's health: error and drop counters that grew while the tool ran (seed 000 §2.2: look at them first when a
USB Ethernet adapter misses its rate). `summary` totals them and flags the error counters (not the drops: a
receiver overrun at the link's rate drops on a healthy link).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hil.lab.board import shell
from hil.measure.parsing import ascii_int, output_lines, parser
from hil.verdict.errors import ParseError
from hil.verdict.measurement import InterfaceCounters, Measurement
from hil.verdict.result import Sample

if TYPE_CHECKING:
    from hil.lab.board.role import Role

BYTES = ("rx_bytes", "tx_bytes")
ERRORS = ("rx_errors", "tx_errors")  # frames the driver or the adapter refused: a faulty link
DROPS = ("rx_dropped", "tx_dropped")  # also a healthy link under overload (UDP at the link's rate)
COUNTERS = (*BYTES, "rx_packets", "tx_packets", *ERRORS, *DROPS)


class InterfaceErrorsWarning(UserWarning):
    """An interface's error counters grew while a metric was measured across it."""


def statistics_command(ifname: str, names: Sequence[str] = COUNTERS) -> str:
    """`grep -H . <counter file>...`: one `<path>:<value>` line per counter. A plain command with paths, no
    `cd`, so that `ip netns exec` can run it."""
    return shell.cmd("grep", "-H", ".", *(f"/sys/class/net/{ifname}/statistics/{name}" for name in names))


def _asked(command: str) -> dict[str, Any]:
    """The counters a capture's command asked for: the file names after `grep -H .`."""
    words = shlex.split(command)
    return {"names": tuple(word.rsplit("/", 1)[-1] for word in words[words.index("-H") + 2 :])}


@parser("netdev", asked=_asked)
def parse_statistics(text: str, *, names: Sequence[str]) -> dict[str, int]:
    """`<statistics dir>/<name>:<value>` lines, exactly one for each counter asked for, all from one
    directory; anything else is a ParseError."""
    values: dict[str, int] = {}
    directories = set()
    for line in output_lines(text, "interface statistics"):
        if not line.strip():
            continue
        path, sep, value = line.strip().rpartition(":")
        directory, _, name = path.rpartition("/")
        interface = directory.removeprefix("/sys/class/net/").removesuffix("/statistics")
        if not sep or directory != f"/sys/class/net/{interface}/statistics" or "/" in interface or name not in names:
            raise ParseError(f"interface statistics: unexpected line {line[:120]!r}", raw_output=text)
        if name in values:
            raise ParseError(f"interface statistics: {name} given twice", raw_output=text)
        directories.add(directory)
        values[name] = ascii_int(value, f"interface counter {name}", text)
    if len(directories) > 1:
        raise ParseError(f"interface statistics of several interfaces: {sorted(directories)}", raw_output=text)
    missing = [name for name in names if name not in values]
    if missing:
        raise ParseError(f"interface statistics: no {', '.join(missing)} in the output", raw_output=text)
    return values


def read(
    role: Role, ifname: str, names: Sequence[str] = COUNTERS, *, wrap: Callable[[str], str] = lambda command: command
) -> dict[str, int]:
    """The interface's counters on `role` (wrap: how a command reaches it, e.g. inside its namespace)."""
    exitcode, output = role.run_status(wrap(statistics_command(ifname, names)), timeout=30)
    counters = parse_statistics(output, names=names)  # parse first: it names what is wrong with the output
    if exitcode != 0:
        raise ParseError(f"reading {ifname}'s statistics exited {exitcode}", raw_output=output)
    return counters


def moved(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, int]:
    """How much each counter moved; a counter that went backwards (reset, a new interface) is an error."""
    delta = {name: after[name] - before[name] for name in before if name in after}
    backwards = [name for name, value in delta.items() if value < 0]
    if backwards:
        raise ParseError(
            f"interface counters went backwards ({', '.join(backwards)}): the interface was reset or replaced",
            raw_output=f"before: {dict(before)}\nafter: {dict(after)}",
        )
    return delta


def record(ifname: str, role: Role, before: Mapping[str, int], after: Mapping[str, int]) -> InterfaceCounters:
    """What a sample keeps: the interface, where it is, and its counters before and after the run."""
    return InterfaceCounters(ifname, role.label, dict(before), dict(after))


def summary(samples: Sequence[Sample | Measurement]) -> tuple[str, list[str]] | None:
    """Error and drop counters totalled over the samples that recorded them, as one line, and the error
    counters that grew (flagged); None when no sample recorded interface counters."""
    records = [s.observed.interface for s in samples if s.observed.interface is not None]
    if not records:
        return None
    moves = [moved(entry.before, entry.after) for entry in records]
    totals = {name: sum(delta.get(name, 0) for delta in moves) for name in (*ERRORS, *DROPS)}
    interfaces = ", ".join(sorted({entry.interface for entry in records}))
    counted = ", ".join(f"{name} +{value}" for name, value in totals.items())
    line = f"{interfaces}: {counted} over {len(records)} runs"
    return line, [f"{name} +{totals[name]}" for name in ERRORS if totals[name] > 0]
