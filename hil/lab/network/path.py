"""Where a network measurement's traffic must show: the interfaces whose byte counters must move by at least
what the tool says arrived, and the one whose error and drop counters are kept (proven by hil.measure.netpath).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hil.lab.board import shell
from hil.lab.board.role import Role


@dataclass(frozen=True)
class NetEnd:
    """One end: the role it lives on, its interface, its address, its namespace (None: the role's own)."""

    role: Role
    ifname: str
    address: str
    netns: str | None = None
    ip: str = "ip"  # iproute2's ip by its full path where namespaces are used (hil.lab.network.netns)

    def wrap(self, command: str) -> str:
        """The command as it must run to use this end's interface (inside its namespace, if any)."""
        if self.netns is None:
            return command
        return f"{shell.cmd(self.ip, 'netns', 'exec', self.netns)} {command}"

    def run(self, command: str, *, timeout: float = 60.0) -> str:
        return self.role.run(self.wrap(command), timeout=timeout)


@dataclass(frozen=True)
class Counted:
    """An interface the traffic must cross, and the direction its bytes go there (tx: it sends)."""

    end: NetEnd
    direction: Literal["tx", "rx"]


@dataclass(frozen=True)
class NetPath:
    """The interfaces one measurement's traffic must cross, named for the error that says it did not."""

    name: str  # "the USB link", "the USB Ethernet adapter"
    counted: tuple[Counted, ...]
    recorded: NetEnd | None = None  # its error and drop counters are stored with every run

    def ends(self) -> list[NetEnd]:
        """Every interface whose counters are read, each once (the same object: two ends may look alike)."""
        ends: list[NetEnd] = []
        for end in [c.end for c in self.counted] + ([self.recorded] if self.recorded else []):
            if not any(end is seen for seen in ends):
                ends.append(end)
        return ends

    def index(self, end: NetEnd) -> int:
        """Where `end` is in `ends()`."""
        return next(i for i, seen in enumerate(self.ends()) if seen is end)
