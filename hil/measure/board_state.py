"""What the board doing the work did around each sample: its per-CPU load (/proc/stat, hil.measure.cpuload)
and its operating point (hil.measure.operating_point), read with ONE command before the sample and one after:
on a serial console every command is a round trip, and two facts per side cost two."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hil.measure import cpuload, operating_point
from hil.measure.around import around
from hil.verdict.errors import ParseError

if TYPE_CHECKING:
    from hil.lab.board.role import Role

MARK = "hil-operating-point"  # between the two outputs; neither prints it
# No value from configuration goes into it: nothing to quote.
COMMAND = f"cat /proc/stat; echo {MARK}; {operating_point.SCRIPT}"

State = tuple[dict[str, tuple[int, ...]], operating_point.OperatingPoint]


def parse(text: str) -> State:
    """/proc/stat's counters and the operating point from COMMAND's output; each part checked by its parser."""
    stat, mark, point = text.partition(f"\n{MARK}\n")
    if not mark:
        raise ParseError(f"board state: no {MARK!r} line between /proc/stat and the operating point", text)
    try:
        return cpuload.parse_stat(stat), operating_point.parse(point)
    except ParseError as exc:  # the report shows the whole output, not the part that failed
        raise ParseError(f"board state: {exc}", text) from exc


def with_board_state(role: Role, sample: Callable[[], Any]) -> Callable[[], Any]:
    """`sample`, with `role`'s per-CPU load during it (`observed.cpu_load`, and the busiest core as the tool's
    `cpu_busiest` quantity) and what moved of its operating point (`observed.operating_point`)."""

    def read() -> State:
        return parse(role.run(COMMAND, timeout=30))

    def after(before: State) -> dict[str, Any]:
        stat, point = read()
        return {
            "cpu_load": cpuload.load(role, before[0], stat),
            "operating_point": operating_point.change(role, before[1], point),
        }

    return cpuload.with_busiest(around(sample, read, after))
