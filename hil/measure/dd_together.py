"""dd on several block devices of one role at the same time: each device's rate and the role's sum.

One dd per disk, all started in one command line on the role (a console round trip per dd would stagger
them), each one's output in a file of its own. Each disk's rate is its dd's (dd.parse's rules); the sum is all
disks' bytes over the role's clock (`date +%s%N`) from before the first dd started to after the last ended.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure import dd
from hil.measure.parsing import ascii_int, output_lines, parser, run_timed, span
from hil.verdict.errors import ParseError
from hil.verdict.measurement import Measurement, Quantity
from hil.verdict.result import metric_key

# Printed by the command: the clock around all dd runs, then per disk its index, exit status and dd's output.
_SPAN = re.compile(r"together-ns (?P<start>[0-9]{19}) (?P<end>[0-9]{19})", re.ASCII)
_DISK = re.compile(r"== disk (?P<index>[0-9]+) exit (?P<exit>[0-9]+)", re.ASCII)


@dataclass(frozen=True)
class Together:
    transfers: tuple[dd.DdTransfer, ...]  # in the order of the nodes
    seconds: float  # from before the first dd started to after the last one ended

    @property
    def total_mb_per_s(self) -> float:
        return sum(t.bytes for t in self.transfers) / self.seconds / 1e6


def command(dd_commands: list[str]) -> str:
    """Start every dd at once (each into a file of its own), wait for each, print the clock and the outputs;
    in a shell of its own (`sh -c`), so that its `exit` and variables stay out of the role's login shell."""
    started = [f'{c} >"$d/{i}" 2>&1 & p{i}=$!' for i, c in enumerate(dd_commands)]
    waited = [f"wait $p{i}; r{i}=$?" for i in range(len(dd_commands))]
    printed = [f'echo "== disk {i} exit $r{i}"; cat "$d/{i}"' for i in range(len(dd_commands))]
    clocked = ["s=$(date +%s%N)", *started, *waited, "e=$(date +%s%N)", 'echo "together-ns $s $e"']
    return shell.cmd("sh", "-c", "; ".join(["d=$(mktemp -d) || exit 1", *clocked, *printed, 'rm -rf "$d"']))


def asked(command: str) -> dict[str, list[int | None]]:
    """What a command of `command`'s asks each dd to copy, as `parse`'s keyword (dd.asked per dd, in order)."""
    script = shlex.split(command)[-1]
    return {"expected_bytes": [dd.asked(part)["expected_bytes"] for part in script.split("; ") if " dd " in part]}


@parser("dd_together", asked=asked)
def parse(output: str, *, expected_bytes: list[int | None]) -> Together:
    """The clock line, then per dd (in order) its exit line and its output by dd.parse's rules. A dd that exited
    non-zero, a missing or extra disk, a clock without nanoseconds: ParseError with the whole output."""
    lines = [line.rstrip() for line in output_lines(output, "dd on several disks") if line.strip()]
    clock = _SPAN.fullmatch(lines[0]) if lines else None
    if clock is None:
        raise ParseError("no clock line (together-ns START END) before the dd outputs", raw_output=output)
    heads = [(n, _DISK.fullmatch(line)) for n, line in enumerate(lines) if line.startswith("== disk ")]
    if [m and ascii_int(m["index"], "disk index", output) for _, m in heads] != list(range(len(expected_bytes))):
        raise ParseError(f"expected the outputs of {len(expected_bytes)} dd runs in order", raw_output=output)
    transfers = []
    for (at, head), (end, _), asked in zip(heads, [*heads[1:], (len(lines), None)], expected_bytes, strict=True):
        assert head is not None  # checked above
        if head["exit"] != "0":
            raise ParseError(f"dd on disk {head['index']} exited {head['exit']}", raw_output=output)
        try:
            transfers.append(dd.parse("\n".join(lines[at + 1 : end]), expected_bytes=asked))
        except ParseError as exc:
            raise ParseError(f"disk {head['index']}: {exc}", raw_output=output) from None
    start = ascii_int(clock["start"], "start (ns)", output)
    seconds = span(start, ascii_int(clock["end"], "end (ns)", output), resolution=1, what="clock (ns)", raw=output)
    if seconds / 1e9 < max(t.seconds for t in transfers):
        raise ParseError("the clock around all dd runs is shorter than one dd's own time", raw_output=output)
    return Together(tuple(transfers), seconds / 1e9)


def run(role: Role, nodes: Mapping[str, str], direction: str, *, block_size: str, total_mb: int) -> Measurement:
    """Caches dropped, one dd per node at once (dd.read_command / write_command): per node `metric_key("throughput",
    {"disk": name})` in MB/s, and the sum as "throughput"."""
    build = dd.read_command if direction == "read" else dd.write_command
    role.run(dd.DROP_CACHES, timeout=60)
    line = command([build(n, block_size, total_mb) for n in nodes.values()])
    output, started, duration = run_timed(role, line, "dd on several disks", timeout=600)
    together = parse(output, expected_bytes=[dd.total_bytes(block_size, total_mb)] * len(nodes))
    values = {
        metric_key("throughput", {"disk": name}): Quantity(t.mb_per_s, "MB/s")
        for name, t in zip(nodes, together.transfers, strict=True)
    }
    values["throughput"] = Quantity(together.total_mb_per_s, "MB/s")
    details = {"span_s": round(together.seconds, 6), "dd_s": [round(t.seconds, 6) for t in together.transfers]}
    return Measurement(values, raw=output, started=started, duration_s=duration, details=details)
