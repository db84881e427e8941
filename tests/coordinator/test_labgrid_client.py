"""hil reads the coordinator's places (and through them reservations) as data, with labgrid's client session:
checked here against the installed labgrid and a real coordinator (the lab fixture), labgrid-client making the
state."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from hil.errors import LabError
from hil.lab.board import coordinator_view
from hil.lab.board.coordinator_view import PlaceView

HIL = Path(__file__).resolve().parents[2] / "hil"


def test_places_and_reservations_read_as_labgrid_client_set_them(free_lab):
    token = re.search(r"LG_TOKEN=(\S+)", free_lab.client("reserve", "--shell", "name=vboard-1")).group(1)
    try:
        free_lab.client("wait", token)
        free_lab.client("-p", f"+{token}", "acquire")
        free_lab.client("-p", "vboard-2", "set-tags", "kind=vlab", "contract=yes")
        free_lab.client("-p", "vboard-2", "add-alias", "contract-alias")

        places = coordinator_view.places(free_lab.address)
        held, other = places["vboard-1"], places["vboard-2"]
        assert held.acquired and held.acquired.count("/") == 1 and held.reservation == token
        assert held.exporters == ("hil-vlab",)  # what the lock took: the exporter serving its resources
        assert other.acquired is None and other.exporters == () and other.reservation is None
        assert other.tags["contract"] == "yes" and other.aliases == ("contract-alias",)

        assert coordinator_view.reserved_for(places, token) == "vboard-1"  # as `labgrid-client -p +TOKEN` finds it
    finally:
        free_lab.client("-p", "vboard-1", "release")
        free_lab.client("cancel-reservation", token)
        free_lab.client("-p", "vboard-2", "set-tags", "contract=")
        free_lab.client("-p", "vboard-2", "del-alias", "contract-alias")
    assert coordinator_view.reserved_for(coordinator_view.places(free_lab.address), token) is None


def test_a_coordinator_that_is_not_there_is_an_error_naming_it():
    with pytest.raises(LabError, match=r"coordinator 127\.0\.0\.1:9: cannot read its places"):
        coordinator_view.places("127.0.0.1:9")


def test_a_labgrid_whose_objects_changed_is_an_error_naming_its_version():
    class Restyled:  # a place without `acquired_resources`, as a future labgrid might have
        tags, acquired, reservation, aliases = {}, None, None, set()

    with pytest.raises(LabError, match=rf"labgrid {re.escape(coordinator_view.labgrid_version())} describes"):
        coordinator_view._convert("places", "lab:1", lambda raw: coordinator_view._place("p", raw), Restyled())


def test_a_place_satisfies_a_filter_by_tags_or_by_name():
    place = PlaceView("rk3568-a", {"soc": "rk3568"}, None, None, ())

    assert place.satisfies({"soc": "rk3568"}) and place.satisfies({"name": "rk3568-a"})
    assert not place.satisfies({"soc": "rk3588"}) and not place.satisfies({"soc": "rk3568", "name": "rk3568-b"})


def test_only_the_coordinator_view_imports_labgrids_client():
    # labgrid's client session is read in one module, whose views name what hil uses; the rest of hil acts
    # through labgrid-client and labgrid's RemotePlace resource.
    offenders = []
    for path in sorted(HIL.rglob("*.py")):
        if path == HIL / "lab" / "board" / "coordinator_view.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(HIL.parent)}: {n}" for n in names if n.startswith(("labgrid.remote", "grpc"))
            ]
    assert offenders == []
