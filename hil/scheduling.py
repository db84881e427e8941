"""Which tests must run in one process: all tests of a board, under pytest-xdist.

Two workers must never drive the same board. Pairs that share a target of a real lab (the same labgrid
environment file and target name) form one group, and a group runs on one worker (`--dist loadgroup`
and an `xdist_group` marker per test). Pairs on the virtual lab are their own groups: each worker boots
its own QEMU, so two virtual pairs can run side by side. Pairs on labgrid places share a group when they
name the same place.
"""

from __future__ import annotations

from collections.abc import Iterable

from hil.inventory.loader import Board


def board_groups(boards: Iterable[Board]) -> dict[str, str]:
    """Pair name -> group name (the sorted pair names of the group, joined)."""
    boards = list(boards)
    parent = {board.name: board.name for board in boards}

    def root(name: str) -> str:
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    owner: dict[tuple[str, str], str] = {}
    for board in boards:
        if board.config.vlab:
            continue
        for role in board.config.roles.values():
            # A pair on places shares a board only with pairs naming the same place: the coordinator hands
            # pairs that ask by tags a place of their own, or makes them wait.
            if role.place is not None and role.place.name is None:
                continue
            key = ("place", role.place.name) if role.place is not None else (str(board.env_path), role.target)
            if key in owner:
                parent[root(board.name)] = root(owner[key])
            else:
                owner[key] = board.name
    members: dict[str, list[str]] = {}
    for board in boards:
        members.setdefault(root(board.name), []).append(board.name)
    return {name: "+".join(sorted(members[root(name)])) for name in parent}
