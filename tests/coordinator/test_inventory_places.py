"""boards.yaml: pairs that name labgrid places, validated before anything talks to a coordinator."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hil.errors import InventoryError, LabError
from hil.inventory.loader import load_inventory
from hil.inventory.schema import PlaceConfig
from hil.lab.board.places import remote_environment
from hil.lab.environments import Environments
from hil.scheduling import board_groups

REPO = Path(__file__).resolve().parents[2]
REMOTE_ENV = REPO / "hil" / "vlab" / "remote-env.yaml"
LOCAL_ENV = REPO / "hil" / "vlab" / "env.yaml"


def _boards(tmp_path: Path, roles: str, extra: str = "", env: Path = REMOTE_ENV) -> Path:
    path = tmp_path / "boards.yaml"
    path.write_text(
        f"{extra}pairs:\n  rpair:\n    env: {env}\n    roles:\n{roles}"
        "    link: {type: usb, speed: high, udc: dummy_udc.0}\n"
    )
    return path


def test_the_example_remote_inventory_loads():
    loaded = load_inventory(REPO / "hil" / "vlab" / "remote-boards.yaml")
    assert set(loaded.boards) == {"remote-hs", "remote-ss"}
    for board in loaded.boards.values():
        assert board.config.remote and not board.config.vlab
        assert board.config.roles["device"].place == PlaceConfig(tags={"kind": "vlab"})


def test_a_place_by_name_alone_is_a_string(tmp_path):
    path = _boards(
        tmp_path, "      host: {target: vboard, place: vboard-1}\n      device: {target: vboard, place: vboard-1}\n"
    )
    place = load_inventory(path).boards["rpair"].config.roles["host"].place
    assert place == PlaceConfig(name="vboard-1")
    assert place.filters() == {"name": "vboard-1"}


@pytest.mark.parametrize(
    ("roles", "extra", "message"),
    [
        (
            "      host: {target: vboard, place: {tags: {kind: vlab}}}\n      device: {target: vboard}\n",
            "",
            "roles ['host'] name places and ['device'] do not",
        ),
        (
            "      host: {target: vboard, place: vboard-1}\n      device: {target: vboard, place: vboard-2}\n",
            "",
            "roles on target 'vboard' name different places",
        ),
        (
            "      host: {target: vboard, place: {}}\n      device: {target: vboard, place: {}}\n",
            "",
            "a place needs a name or tags",
        ),
        (
            "      host: {target: vboard, place: {tags: {Kind: vlab}}}\n"
            "      device: {target: vboard, place: {tags: {Kind: vlab}}}\n",
            "",
            "String should match pattern",
        ),
        (
            "      host: {target: vboard, place: {tags: {kind: vlab}}}\n"
            "      device: {target: vboard, place: {tags: {kind: vlab}}}\n",
            "coordinator: {wait_s: 0}\n",
            "coordinator/wait_s: Input should be greater than 0",
        ),
    ],
    ids=["mixed-local-and-place", "one-target-two-places", "place-without-filter", "bad-tag-key", "zero-wait"],
)
def test_a_malformed_remote_pair_is_an_inventory_error(tmp_path, roles, extra, message):
    with pytest.raises(InventoryError, match=re.escape(message)):
        load_inventory(_boards(tmp_path, roles, extra))


def test_a_role_on_a_place_needs_a_remote_place_in_its_env(tmp_path):
    roles = "      host: {target: vboard, place: vboard-1}\n      device: {target: vboard, place: vboard-1}\n"
    with pytest.raises(
        InventoryError, match=r"line 5: pairs/rpair/roles/host/place: target 'vboard' .* no RemotePlace"
    ):
        load_inventory(_boards(tmp_path, roles, env=LOCAL_ENV))


def test_vlab_and_places_exclude_each_other(tmp_path):
    roles = "      host: {target: vboard, place: vboard-1}\n      device: {target: vboard, place: vboard-1}\n"
    path = _boards(tmp_path, roles)
    path.write_text(path.read_text().replace("    roles:", "    vlab: true\n    roles:"))
    with pytest.raises(InventoryError, match=r"python -m hil\.vlab\.lab start"):
        load_inventory(path)


def test_pairs_asking_by_tags_are_scheduled_apart_and_by_the_same_name_together(tmp_path):
    pairs = {
        "tag-a": "{tags: {kind: vlab}}",
        "tag-b": "{tags: {kind: vlab}}",
        "one-a": "vboard-1",
        "one-b": "vboard-1",
    }
    text = "pairs:\n" + "".join(
        f"  {name}:\n    env: {REMOTE_ENV}\n    roles:\n      host: {{target: vboard, place: {place}}}\n"
        f"      device: {{target: vboard, place: {place}}}\n    link: {{type: usb, speed: high}}\n"
        for name, place in pairs.items()
    )
    (tmp_path / "boards.yaml").write_text(text)
    groups = board_groups(load_inventory(tmp_path / "boards.yaml").boards.values())
    assert groups["tag-a"] == "tag-a" and groups["tag-b"] == "tag-b"
    assert groups["one-a"] == groups["one-b"] == "one-a+one-b"


def test_the_environment_of_a_remote_pair_names_the_reserved_place():
    env = remote_environment(REMOTE_ENV, "127.0.0.1:1234", {"vboard": "vboard-2"})
    assert env.config.data["targets"]["vboard"]["resources"]["RemotePlace"]["name"] == "vboard-2"
    assert env.config.get_option("coordinator_address") == "127.0.0.1:1234"


def test_a_pair_on_places_without_a_coordinator_says_how_to_set_one():
    board = load_inventory(REPO / "hil" / "vlab" / "remote-boards.yaml").boards["remote-hs"]
    with pytest.raises(LabError, match="--lg-coordinator HOST:PORT, LG_COORDINATOR, or coordinator/address"):
        Environments(coordinator=None).open(board)
