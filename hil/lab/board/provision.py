"""Put the build under test on the boards of a labgrid environment, before their first power-on.

A target with one of hil's strategies gets the build from its `BootBuildProtocol` driver, and its strategy
checks after every boot that the board runs it (hil.build.boardview); a target without such a driver is a
LabError. Targets without a strategy (the lab PC) are left alone.
"""

from __future__ import annotations

import abc

from labgrid import Environment, Target
from labgrid.exceptions import NoDriverFoundError

from hil.build.manifest import Build
from hil.errors import LabError
from hil.lab.board.role import strategy_of


class BootBuildProtocol(abc.ABC):
    """A driver that puts a build on its board before the first power-on (flashboot, tftpboot, hil.vlab.qemu).

    `boot_build` runs on the bound driver, not the active one: activating a U-Boot boot driver activates its
    UBootDriver, which waits for the prompt of a board not yet powered, and QEMUDriver fixes on activation
    the command line the build changes."""

    @abc.abstractmethod
    def boot_build(self, build: Build) -> None:
        raise NotImplementedError


class ClockProtocol(abc.ABC):
    """A driver whose board runs on one of several clocks, chosen before its power-on (hil.vlab.qemu: the real
    clock, or QEMU's instruction-counted one at `virtual_mips`), and boots one way for tests that suspend it to
    RAM and another for the rest."""

    clock: str
    virtual_mips: int
    suspends: bool
    status: int  # labgrid's power state: 1 while on

    @abc.abstractmethod
    def use_clock(self, clock: str, mips: int, suspends: bool) -> None:
        raise NotImplementedError


def use_clock(target: Target, clock: str, mips: int = 125, *, suspends: bool = False) -> bool:
    """`target` runs on `clock` from its next power-on, booted for a test that suspends it to RAM or not: a board
    booted otherwise is powered off (True when it was). A target without a ClockProtocol driver (a real board) runs
    on the real clock only, and boots one way."""
    try:
        driver = target.get_driver(ClockProtocol, activate=False)
    except NoDriverFoundError:
        if clock == "real":
            return False
        raise LabError(
            f"{target.name}: clock {clock!r} is the virtual board's, and none of its drivers has one"
        ) from None
    if (driver.clock, driver.virtual_mips, driver.suspends) == (clock, mips, suspends):
        return False
    if driver.status:
        strategy = strategy_of(target)
        strategy.transition("off") if strategy is not None else driver.off()
    driver.use_clock(clock, mips, suspends)
    return True


def provision(env: Environment, build: Build) -> list[str]:
    """Give `build` to each booting target of `env`; the targets' names."""
    done = []
    for name in env.config.get_targets():  # labgrid makes a target on first get_target: make each now
        target = env.get_target(name)
        strategy = strategy_of(target)
        if strategy is None:
            continue
        try:
            booter = target.get_driver(BootBuildProtocol, activate=False)  # before the first power-on: bound only
        except NoDriverFoundError:
            raise LabError(
                f"{name}: hil cannot put build {build.label} on it: none of its drivers boots a build "
                f"({', '.join(type(d).__name__ for d in target.drivers)}); hil boots one on the virtual board"
            ) from None
        booter.boot_build(build)
        strategy.build = build
        done.append(name)
    return done
