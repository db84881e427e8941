"""labgrid environments of a run: one per env file, shared by its pairs, one of its own for a pair on places.
The build under test goes on every board before its first power-on; at the end every board is powered off
and every place released."""

from __future__ import annotations

import contextlib
from pathlib import Path

from labgrid import Environment

from hil.build.manifest import Build
from hil.errors import LabError
from hil.inventory.loader import Board
from hil.lab.board import places
from hil.lab.board.provision import provision
from hil.lab.board.role import strategy_of
from hil.lab.pair import BoardPair


class Environments:
    """A run's environments and leases (see the module doc), created on first use, cleaned up at the end."""

    def __init__(self, coordinator: str | None = None, *, wait_s: float = 600.0, build: Build | None = None) -> None:
        self.coordinator = coordinator
        self.wait_s = wait_s
        self.build = build  # the build under test: put on every environment's boards before their first power-on
        self._envs: dict[Path, Environment] = {}
        self._remote: places.Coordinator | None = None
        self.leases: list[places.Lease] = []  # held now: released by give_back or at cleanup

    def open(self, board: Board) -> BoardPair:
        """The pair's roles on its targets; a pair on places first reserves and acquires them."""
        lease = None
        if board.config.remote:
            if self.coordinator is None:
                raise LabError(
                    f"{board.name} names labgrid places but no coordinator is set: give --lg-coordinator HOST:PORT, "
                    "LG_COORDINATOR, or coordinator/address in boards.yaml"
                )
            self._remote = self._remote or places.Coordinator(self.coordinator, places.UsersChoice.from_environ())
            lease = places.lease_pair(board, self._remote, self.wait_s)
            self.leases.append(lease)
        try:
            env = self.get(board.env_path) if lease is None else self._ready(lease.env)
            return BoardPair.on(board, env, lease)
        except BaseException:
            if lease is not None:
                self.give_back(lease)
            raise

    def give_back(self, lease: places.Lease) -> None:
        """Power the pair's boards off and release its places (every step attempted, once)."""
        if lease not in self.leases:
            return
        try:
            if lease.env is not None:
                _power_off(lease.env)
        finally:
            lease.release()
            if lease in self.leases:
                self.leases.remove(lease)

    def adopt(self, path: Path, env: Environment) -> None:
        """Use `env`, made elsewhere of `path` (labgrid's pytest plugin, from --lg-env), for that file."""
        self._envs[path.resolve()] = self._ready(env)

    def get(self, path: Path) -> Environment:
        if path not in self._envs:
            self._envs[path] = self._ready(Environment(config_file=str(path)))
        return self._envs[path]

    def _ready(self, env: Environment) -> Environment:
        """`env` on the run's coordinator, with the build under test on its boards."""
        if self.coordinator:
            env.config.set_option("coordinator_address", self.coordinator)
        if self.build is not None:
            provision(env, self.build)
        return env

    def release_all(self) -> None:
        for lease in list(self.leases):
            self.give_back(lease)

    def cleanup(self) -> None:
        try:
            for env in self._envs.values():
                _power_off(env)
            self._envs.clear()
        finally:
            self.release_all()  # a pair whose teardown never ran (an interrupted setup)


def _power_off(env: Environment) -> None:
    for target in env.targets.values():
        # Best effort: a dead board must not keep env.cleanup() (or a place's release) from running.
        with contextlib.suppress(Exception):
            strategy = strategy_of(target)
            if strategy is not None:
                strategy.transition("off")
    env.cleanup()
