"""The coordinator's places as data, read through labgrid's client session (the API its RemotePlace uses),
never from the listings `labgrid-client places` prints for people. A reservation is seen through the place
allocated to it, as labgrid's client resolves `-p +TOKEN` (its client API has no call for reservations).
A labgrid whose objects lack what PlaceView reads is one LabError naming labgrid's version, never a wrong place.
"""

from __future__ import annotations

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


def reserved_for(places: dict[str, PlaceView], token: str) -> str | None:
    """The place allocated to reservation `token`, None while it waits (or when it is gone)."""
    return next((name for name, place in sorted(places.items()) if place.reservation == token), None)
