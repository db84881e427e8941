"""A SIGTERM that lands while hil takes a place's lock, or just after, leaves nothing held on the coordinator.

The interruption is injected where the signal handler would raise it (hil.signals turns SIGTERM into a
KeyboardInterrupt): after labgrid-client has really acquired the place, before hil has seen its answer, and
in the call that follows the lock. A CI run saw the end-to-end SIGTERM test leave a place acquired for
nobody when the signal landed in that following call.
"""

from __future__ import annotations

import pytest

from hil.inventory.schema import PlaceConfig
from hil.lab.board import places
from hil.lab.board.places import Coordinator, HeldPlace, LabgridClient, UsersChoice

VLAB = PlaceConfig(tags={"kind": "vlab"})


@pytest.fixture(autouse=True)
def records_in(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)


def interrupt_after(monkeypatch: pytest.MonkeyPatch, verb: str, once: str = "acquire") -> None:
    """labgrid-client `verb` (or the reading of the places, `places`) really runs, then its answer is lost to a
    KeyboardInterrupt, the first time it runs after `once` has (`acquire`, or `verb` itself)."""
    real, real_places = LabgridClient.__call__, LabgridClient.places
    seen = []

    def answered(said: object, *args: str) -> object:
        seen.extend(args)
        if verb in args and once in seen:
            raise KeyboardInterrupt("SIGTERM received")
        return said

    def call(self: LabgridClient, *args: str, timeout: float = places.CALL_TIMEOUT_S) -> str:
        return answered(real(self, *args, timeout=timeout), *args)

    def read_places(self: LabgridClient) -> object:
        return answered(real_places(self), "places")

    monkeypatch.setattr(LabgridClient, "__call__", call)
    monkeypatch.setattr(LabgridClient, "places", read_places)


def test_interrupted_while_acquiring_gives_the_lock_and_reservation_back(free_lab, monkeypatch):
    coordinator = Coordinator(free_lab.address)
    interrupt_after(monkeypatch, "acquire")
    holding: dict[str, HeldPlace] = {}
    with pytest.raises(KeyboardInterrupt):
        coordinator.reserve(VLAB, 30, holding, "vboard")
    assert holding == {}
    # free_lab: no place acquired, no reservation left


def test_interrupted_just_after_the_lock_leaves_the_place_with_the_lease(free_lab, monkeypatch):
    coordinator = Coordinator(free_lab.address)
    interrupt_after(monkeypatch, "places")  # the call that reads the place's exporters
    holding: dict[str, HeldPlace] = {}
    with pytest.raises(KeyboardInterrupt):
        coordinator.reserve(VLAB, 30, holding, "vboard")
    [held] = holding.values()
    assert free_lab.acquired() == {held.name: coordinator.identity}
    monkeypatch.undo()
    coordinator.release(held)
    # free_lab: no place acquired, no reservation left


def test_interrupted_while_acquiring_the_users_place_gives_back_only_the_lock(free_lab, monkeypatch):
    coordinator = Coordinator(free_lab.address, UsersChoice(token=None, place="vboard-1"))
    interrupt_after(monkeypatch, "acquire")
    holding: dict[str, HeldPlace] = {}
    with pytest.raises(KeyboardInterrupt):
        coordinator.reserve(VLAB, 30, holding, "vboard")
    assert holding == {}
    # free_lab: the lock hil took is given back


def test_a_refused_lock_is_not_released_for_someone_else(free_lab, monkeypatch):
    free_lab.client("-p", "vboard-1", "acquire", user="colleague")
    try:
        coordinator = Coordinator(free_lab.address, UsersChoice(token=None, place="vboard-1"))
        with pytest.raises(places.PlaceUnavailable, match="acquired by"):
            coordinator.reserve(VLAB, 30, {}, "vboard")
        assert free_lab.acquired() == {"vboard-1": free_lab.acquired()["vboard-1"]}
        assert free_lab.acquired()["vboard-1"].endswith("/colleague")
    finally:
        free_lab.client("-p", "vboard-1", "release", user="colleague")
