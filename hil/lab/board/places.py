"""Board pairs on a shared lab: labgrid places reserved through the coordinator, locked, always released.

labgrid is the distributed engine; hil only drives it, in the order `labgrid-client reserve --wait`
and `acquire` would:

1. a reservation with the role's filter (tags, or `name=<place>`), polled until the coordinator
   allocates a place, for at most the inventory's `coordinator.wait_s`; past that bound the pair is an
   ERROR naming who holds each matching place, never a hang;
2. the allocated place is acquired (locked): nobody else can acquire it until it is released;
3. a labgrid Environment from the pair's env file whose target's `RemotePlace` names that place: the
   drivers (power, serial, shell, BoardStrategy) bind to the resources the exporter serves;
4. on every way out (end of the pair's tests, a failure, Ctrl-C, SIGTERM via hil.signals): board
   powered off, place released, reservation cancelled.

A run killed with SIGKILL has no way out: while waiting, hil releases the matching places that a dead
hil process of this host and user still holds (hil.lab.board.holders says which), as `labgrid-client release
--kick` would, and never a place of a live run.

hil uses the same client session as labgrid's RemotePlace resources (one per process), so the place it
acquired is the one the targets see as acquired by this host and user.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labgrid import Environment

from hil.errors import LabError
from hil.inventory.loader import Board
from hil.inventory.schema import PlaceConfig
from hil.lab.board import holders

log = logging.getLogger("hil.remote")
CALL_TIMEOUT_S = 30.0  # one coordinator call; a coordinator that does not answer in this is gone
POLL_S = 0.5


class PlaceUnavailable(LabError):
    """No place matching a pair's filter became free within the bound (names who holds them)."""


@dataclass
class HeldPlace:
    """A place hil reserved and acquired for one target of a pair."""

    name: str
    token: str
    exporters: list[str]
    waited_s: float
    record: holders.HolderRecord | None = None  # this process as the holder, on this host

    def describe(self) -> str:
        return f"{self.name} (exporter {', '.join(self.exporters) or 'none'})"


class Coordinator:
    """hil's side of the labgrid coordinator: reserve, acquire, release, and who holds what."""

    def __init__(self, address: str) -> None:
        self.address = address
        self._session: Any = None

    @property
    def session(self) -> Any:
        if self._session is None:
            from labgrid.remote.client import ServerError
            from labgrid.resource.remote import RemotePlaceManager

            manager = RemotePlaceManager.get()
            if manager.session is None:
                manager.url, manager.env = self.address, None
                try:
                    manager._start()  # the session RemotePlace resources will use too
                except (ConnectionRefusedError, ServerError, OSError) as exc:
                    raise LabError(f"labgrid coordinator {self.address} does not answer: {exc}") from exc
            elif manager.url != self.address:
                raise LabError(f"one coordinator per run: already connected to {manager.url}, not {self.address}")
            self._session = manager.session
        return self._session

    @property
    def identity(self) -> str:
        return f"{self.session.gethostname()}/{self.session.getuser()}"

    def _call(self, coroutine: Coroutine[Any, Any, Any], timeout: float = CALL_TIMEOUT_S) -> Any:
        import grpc

        try:
            return self.session.loop.run_until_complete(asyncio.wait_for(coroutine, timeout))
        except grpc.aio.AioRpcError as exc:
            raise LabError(f"coordinator {self.address}: {exc.details()}") from exc
        except TimeoutError as exc:
            raise LabError(f"coordinator {self.address} did not answer within {timeout:.0f} s") from exc

    def sync(self) -> None:
        if not self._call(self.session.sync_with_coordinator()):
            raise LabError(f"lost the connection to coordinator {self.address}")

    def places(self) -> dict[str, Any]:
        self.sync()
        return dict(self.session.places)

    def reservations(self) -> dict[str, Any]:
        from labgrid.remote.common import Reservation
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

        response = self._call(self.session.stub.GetReservations(pb2.GetReservationsRequest()))
        return {r.token: Reservation.from_pb2(r) for r in response.reservations}

    def matching(self, wanted: PlaceConfig) -> dict[str, Any]:
        filters = wanted.filters()
        return {
            name: place
            for name, place in self.places().items()
            if all((name if key == "name" else place.tags.get(key)) == value for key, value in filters.items())
        }

    def reserve(self, wanted: PlaceConfig, wait_s: float) -> HeldPlace:
        """Reserve a place matching `wanted`, wait (bounded) for it, acquire it."""
        from labgrid.remote.common import Reservation, ReservationState
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

        self.reclaim(wanted)
        candidates = self.matching(wanted)
        if not candidates:
            known = ", ".join(f"{n} ({_tags(p.tags)})" for n, p in sorted(self.places().items())) or "none"
            raise LabError(f"no place on coordinator {self.address} matches {wanted.describe()} (places: {known})")
        request = pb2.CreateReservationRequest(
            filters={"main": pb2.Reservation.Filter(filter=wanted.filters())}, prio=0.0
        )
        token = self._call(self.session.stub.CreateReservation(request)).reservation.token
        started = time.monotonic()
        record = None
        try:
            while True:
                response = self._call(self.session.stub.PollReservation(pb2.PollReservationRequest(token=token)))
                reservation = Reservation.from_pb2(response.reservation)
                if reservation.state is ReservationState.allocated:
                    break
                if reservation.state is not ReservationState.waiting:
                    raise LabError(f"reservation {token} for {wanted.describe()} is {reservation.state.name}")
                waited = time.monotonic() - started
                if self.reclaim(wanted):
                    continue  # the coordinator allocates the freed place at once
                if waited > wait_s:
                    raise PlaceUnavailable(
                        f"no place matching {wanted.describe()} became free within {wait_s:g} s: "
                        + self.holders(wanted)
                    )
                time.sleep(POLL_S)
            name = reservation.allocations["main"][0]
            # Recorded before the lock is taken: a kill between the two must not leave a lock nobody can trace.
            record = holders.HolderRecord.mine(self.address, name, self.identity, token)
            holders.write(record)
            self._call(self.session.stub.AcquirePlace(pb2.AcquirePlaceRequest(placename=name)))
            self.sync()
        except BaseException:  # a bound, Ctrl-C, SIGTERM: the reservation must not hold a place for nobody
            with contextlib.suppress(Exception):
                self._cancel(token)
            if record is not None:
                holders.remove(record)
            raise
        place = self.session.places[name]
        exporters = sorted({path[0] for path in place.acquired_resources})
        held = HeldPlace(name, token, exporters, time.monotonic() - started, record)
        log.info("acquired place %s for %s after %.1f s", held.describe(), wanted.describe(), held.waited_s)
        return held

    def holders(self, wanted: PlaceConfig) -> str:
        """Who holds each place matching `wanted`, for an error message."""
        reservations = self.reservations()
        parts = []
        for name, place in sorted(self.matching(wanted).items()):
            if place.acquired:
                parts.append(f"{name} is acquired by {place.acquired}")
            elif place.reservation in reservations:
                owner = reservations[place.reservation].owner
                parts.append(f"{name} is reserved by {owner} (reservation {place.reservation})")
            else:
                parts.append(f"{name} is free")
        return "; ".join(parts) or "no place matches"

    def reclaim(self, wanted: PlaceConfig) -> list[str]:
        """Release the places matching `wanted` that a dead hil process of this host and user still holds."""
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

        freed = []
        identity = self.identity
        for name, place in sorted(self.matching(wanted).items()):
            if place.acquired not in (identity, None):
                continue
            record = holders.read(self.address, name)
            if record is None or record.identity != identity or record.alive():
                continue
            if place.acquired is None and place.reservation != record.token:
                continue  # killed before it acquired: only its reservation may still hold the place
            # fromuser: released only if still acquired by that identity, as `release --kick` does
            request = pb2.ReleasePlaceRequest(placename=name, fromuser=identity)
            self._call(self.session.stub.ReleasePlace(request))
            with contextlib.suppress(LabError):  # gone already if it expired
                self._cancel(record.token)
            holders.remove(record)
            log.warning("released place %s: its holder, %s, is gone (killed?)", name, record.describe())
            freed.append(name)
        return freed

    def release(self, held: HeldPlace) -> None:
        """Release the place and cancel its reservation; each step is attempted, errors are logged."""
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

        try:
            self._call(self.session.stub.ReleasePlace(pb2.ReleasePlaceRequest(placename=held.name)))
        except Exception as exc:
            log.warning("releasing place %s: %s", held.name, exc)
        try:
            self._cancel(held.token)
        except Exception as exc:
            log.warning("cancelling reservation %s of place %s: %s", held.token, held.name, exc)
        if held.record is not None:
            holders.remove(held.record)
        log.info("released place %s", held.name)

    def _cancel(self, token: str) -> None:
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

        self._call(self.session.stub.CancelReservation(pb2.CancelReservationRequest(token=token)))


def _tags(tags: dict[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(tags.items())) or "no tags"


@dataclass
class Lease:
    """The places of one pair, held while its tests run, and the Environment built on them."""

    coordinator: Coordinator
    held: dict[str, HeldPlace] = field(default_factory=dict)  # by env target name
    env: Environment | None = None
    released: bool = False  # from then on the boards may be someone else's: nothing may touch them

    def facts(self) -> dict[str, str]:
        facts = {f"place.{target}": held.describe() for target, held in self.held.items()}
        facts["coordinator"] = self.coordinator.address
        return facts

    def release(self) -> None:
        self.released = True
        for held in self.held.values():
            self.coordinator.release(held)
        self.held.clear()


def lease_pair(board: Board, coordinator: Coordinator, wait_s: float) -> Lease:
    """Reserve and acquire the places of a pair's targets, and build its Environment on them."""
    lease = Lease(coordinator)
    try:
        for role in board.config.roles.values():
            if role.place is not None and role.target not in lease.held:
                lease.held[role.target] = coordinator.reserve(role.place, wait_s)
        lease.env = remote_environment(board.env_path, coordinator.address, {t: h.name for t, h in lease.held.items()})
    except BaseException:
        lease.release()
        raise
    return lease


def remote_environment(env_path: Path, address: str, places: dict[str, str]) -> Environment:
    """The pair's labgrid Environment with each target's RemotePlace naming the place reserved for it."""
    env = Environment(config_file=str(env_path))
    env.config.set_option("coordinator_address", address)
    targets = env.config.data["targets"]
    for target, place in places.items():
        resources = targets[target]["resources"]
        entries = resources if isinstance(resources, list) else [resources]
        for entry in entries:
            if isinstance(entry, dict) and "RemotePlace" in entry:
                entry["RemotePlace"] = {**(entry["RemotePlace"] or {}), "name": place}
    return env
