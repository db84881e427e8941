"""The coordinator's places and reservations as data: read through labgrid's client session, the API
labgrid's own RemotePlace resource uses (`labgrid.remote.client.start_session`), never by reading the
listings `labgrid-client places` prints for people, which labgrid may restyle in any release.

What hil reads of each labgrid object is named here once (PlaceView, ReservationView); a labgrid whose
objects lack it is one LabError naming labgrid's version, never a wrong place. tests/coordinator checks
these views against the installed labgrid and a real coordinator.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any, TypeVar

from hil.errors import LabError

T = TypeVar("T")


@dataclass(frozen=True)
class PlaceView:
    """A place: its tags, who holds it (host/user), the reservation allocated to it, its exporters."""

    name: str
    tags: dict[str, str]
    acquired: str | None  # host/user
    reservation: str | None  # token
    exporters: tuple[str, ...]
    aliases: tuple[str, ...] = ()

    def satisfies(self, filters: dict[str, str]) -> bool:
        return all((self.name if key == "name" else self.tags.get(key)) == value for key, value in filters.items())


@dataclass(frozen=True)
class ReservationView:
    """A reservation: its owner, state and the places allocated to it."""

    token: str
    owner: str
    state: str  # waiting, allocated, acquired, expired, invalid
    allocations: tuple[str, ...]


def labgrid_version() -> str:
    return version("labgrid")


def _read(what: str, address: str, convert: Callable[[Any], T], fetch: Callable[[Any], Any]) -> T:
    """Open a client session on the coordinator, fetch, close, convert."""
    from labgrid.remote.client import start_session  # labgrid's client API, as its RemotePlace uses it

    try:
        # On labgrid's event loop of this thread (grpc's asyncio binds to one loop; RemotePlace uses it too).
        session = start_session(address)
    except Exception as exc:  # labgrid raises its ServerError, grpc errors or OSError for a coordinator gone
        raise LabError(f"coordinator {address}: cannot read its {what}: {exc}") from exc
    try:
        raw = fetch(session)
        raw = session.loop.run_until_complete(raw) if asyncio.iscoroutine(raw) else raw
    finally:
        with contextlib.suppress(Exception):
            session.loop.run_until_complete(session.stop())
            session.loop.run_until_complete(session.close())
    return _convert(what, address, convert, raw)


def _convert(what: str, address: str, convert: Callable[[Any], T], raw: Any) -> T:
    """labgrid's objects into hil's views; a labgrid that changed them is one clear error, never a wrong place."""
    try:
        return convert(raw)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise LabError(
            f"coordinator {address}: labgrid {labgrid_version()} describes its {what} in a form hil does not "
            f"know ({type(exc).__name__}: {exc}); hil reads them as labgrid 25 and 26 do"
        ) from exc


def _place(name: str, place: Any) -> PlaceView:
    acquired = place.acquired
    return PlaceView(
        name=name,
        tags={str(k): str(v) for k, v in dict(place.tags).items()},
        acquired=str(acquired) if acquired else None,
        reservation=str(place.reservation) if place.reservation else None,
        exporters=tuple(sorted({str(path[0]) for path in place.acquired_resources})),
        aliases=tuple(sorted(str(alias) for alias in place.aliases)),
    )


def places(address: str) -> dict[str, PlaceView]:
    """Every place the coordinator has, by name."""
    return _read(
        "places", address, lambda raw: {str(n): _place(str(n), p) for n, p in dict(raw).items()}, lambda s: s.places
    )


async def _reservations(session: Any) -> list[Any]:
    # The coordinator's GetReservations, as `labgrid-client reservations` asks it, into labgrid's Reservation.
    from labgrid.remote.common import Reservation
    from labgrid.remote.generated import labgrid_coordinator_pb2

    response = await session.stub.GetReservations(labgrid_coordinator_pb2.GetReservationsRequest())
    return [Reservation.from_pb2(entry) for entry in response.reservations]


def _reservation(reservation: Any) -> ReservationView:
    state = reservation.state
    return ReservationView(
        token=str(reservation.token),
        owner=str(reservation.owner),
        state=str(getattr(state, "name", state)),
        allocations=tuple(str(name) for names in dict(reservation.allocations).values() for name in names),
    )


def reservations(address: str) -> dict[str, ReservationView]:
    """Every reservation the coordinator keeps, by token."""
    return _read("reservations", address, lambda raw: {r.token: r for r in map(_reservation, raw)}, _reservations)
