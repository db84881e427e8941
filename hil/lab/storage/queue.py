"""The block queue behind a storage figure: the settings that explain it, read where the disk is.

A 512K dd on a disk whose max_sectors_kb is 120 is four requests per block, not one: a figure without these
cannot be compared with another board's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.role import Role

# In the order they are shown; a kernel without one of them (older, or a device-mapper node) leaves it out.
QUEUE_FILES = ("scheduler", "max_sectors_kb", "max_hw_sectors_kb", "rotational", "nr_requests", "read_ahead_kb")
_LINE = re.compile(r"^(?P<key>[a-z_]+)=(?P<value>.*)$")


@dataclass(frozen=True)
class BlockQueue:
    disk: str  # the whole disk whose queue it is: sda for /dev/sda1
    values: dict[str, str]

    @property
    def scheduler(self) -> str | None:
        """The active scheduler: sysfs lists them all and brackets the one in use ("[mq-deadline] none")."""
        found = re.search(r"\[([^\]]+)\]", self.values.get("scheduler", ""))
        return found[1] if found else None

    def describe(self) -> str:
        shown = dict(self.values)
        if self.scheduler is not None:
            shown["scheduler"] = self.scheduler
        return f"{self.disk}: " + ", ".join(f"{key} {shown[key]}" for key in QUEUE_FILES if key in shown)


def read(role: Role, node: str) -> BlockQueue:
    """The queue of the disk that holds `node` (a disk or one of its partitions), read on `role`."""
    script = (
        f"n={shell.quote(node)}; "
        'b=$(basename "$(readlink -f "$n")"); s=$(readlink -f "/sys/class/block/$b"); '
        '[ -f "$s/partition" ] && s=$(dirname "$s"); '
        '[ -d "$s/queue" ] || { echo "no block queue for $n"; exit 1; }; '
        'echo "disk=$(basename "$s")"; '
        f"for f in {' '.join(QUEUE_FILES)}; do "
        '[ -r "$s/queue/$f" ] && echo "$f=$(cat "$s/queue/$f")"; done; true'
    )
    exitcode, output = role.run_status(script, timeout=30)
    found = {m["key"]: m["value"].strip() for m in map(_LINE.match, output.splitlines()) if m}
    disk = found.pop("disk", "")
    if exitcode != 0 or not disk:
        raise LabError(f"{role.label}: cannot read the block queue of {node} (output: {output.strip()!r})")
    return BlockQueue(disk, {key: found[key] for key in QUEUE_FILES if key in found})
