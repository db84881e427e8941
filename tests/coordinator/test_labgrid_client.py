"""hil reaches the coordinator through labgrid-client only: its listings read from real captured output."""

from __future__ import annotations

import ast
from pathlib import Path

from hil.lab.board.places import PlaceView, parse_places, parse_reservations

DATA = Path(__file__).resolve().parents[1] / "data" / "labgrid-client"
HIL = Path(__file__).resolve().parents[2] / "hil"


def test_places_are_read_with_tags_holder_reservation_and_exporters():
    places = parse_places((DATA / "places-verbose.txt").read_text())

    assert set(places) == {"vboard-1", "vboard-2"}
    free, held = places["vboard-1"], places["vboard-2"]
    assert free.tags == {"board": "vboard-1", "kind": "vlab"}
    assert free.acquired is None and free.exporters == ()
    assert free.reservation == "DSUEGJ3IZ5"
    assert held.acquired == "vm/root" and held.exporters == ("hil-vlab",)
    assert held.reservation == "5IPQBEZUC9"


def test_reservations_are_read_with_owner_state_and_allocated_place():
    reservations = parse_reservations((DATA / "reservations.txt").read_text())

    assert {t: (r.owner, r.state, r.allocations) for t, r in reservations.items()} == {
        "DSUEGJ3IZ5": ("vm/root", "allocated", ("vboard-1",)),
        "5IPQBEZUC9": ("vm/root", "acquired", ("vboard-2",)),
    }


def test_a_place_satisfies_a_filter_by_tags_or_by_name():
    place = PlaceView("rk3568-a", {"soc": "rk3568"}, None, None, ())

    assert place.satisfies({"soc": "rk3568"}) and place.satisfies({"name": "rk3568-a"})
    assert not place.satisfies({"soc": "rk3588"}) and not place.satisfies({"soc": "rk3568", "name": "rk3568-b"})


def test_nothing_in_hil_imports_labgrids_private_client_or_grpc_stubs():
    # labgrid.remote is labgrid's implementation of its client and coordinator, not an interface: hil uses
    # labgrid-client (and labgrid's RemotePlace resource), so a labgrid upgrade cannot break it silently.
    offenders = []
    for path in sorted(HIL.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(HIL.parent)}: {n}" for n in names if n.startswith(("labgrid.remote", "grpc"))
            ]
    assert offenders == []
