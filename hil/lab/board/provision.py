"""Put the build under test on the boards of a labgrid environment, before their first power-on.

A target that boots Linux (it has one of hil's strategies) gets the build from a driver that can put it
there (a `BootBuildProtocol`, as labgrid binds its drivers by protocol): the virtual board's QEMU boots the
build's kernel and initramfs with its kernel arguments (hil.vlab.qemu). Its strategy then checks after every
boot that the board runs it (hil.build.boardview). A target without such a driver is a LabError naming it:
hil measures nothing on a board it could not put the build on. Targets without a strategy (the lab PC) are left alone.
"""

from __future__ import annotations

import abc

from labgrid import Environment

from hil.build.manifest import Build
from hil.errors import LabError
from hil.lab.board.role import strategy_of


class BootBuildProtocol(abc.ABC):
    """A driver that puts a build on its board before the first power-on (hil.lab.board.flashboot, tftpboot).

    Like collections.abc's one-method ABCs, a driver with a `boot_build` method is one (the virtual board's)."""

    @abc.abstractmethod
    def boot_build(self, build: Build) -> None:
        raise NotImplementedError

    @classmethod
    def __subclasshook__(cls, other: type) -> bool:
        return callable(getattr(other, "boot_build", None)) or NotImplemented


def provision(env: Environment, build: Build) -> list[str]:
    """Give `build` to each booting target of `env`; the targets' names."""
    done = []
    for name in env.config.get_targets():  # labgrid makes a target on first get_target: make each now
        target = env.get_target(name)
        strategy = strategy_of(target)
        if strategy is None:
            continue
        booters = [driver for driver in target.drivers if isinstance(driver, BootBuildProtocol)]
        if not booters:
            raise LabError(
                f"{name}: hil cannot put build {build.label} on it: none of its drivers boots a build "
                f"({', '.join(type(d).__name__ for d in target.drivers)}); hil boots one on the virtual board"
            )
        booters[0].boot_build(build)
        strategy.build = build
        done.append(name)
    return done
