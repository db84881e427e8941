"""Which tests must run in one process: all tests of a board, under pytest-xdist.

Two workers must never drive the same board: pairs that share a target of a real lab (the same labgrid
environment file and target name) or name the same place form one group, which runs on one worker (`--dist
loadgroup`, an `xdist_group` marker per test). Each virtual pair is its own group: each worker boots its own QEMU.
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
        for key in _hardware(board):
            if key in owner:
                parent[root(board.name)] = root(owner[key])
            else:
                owner[key] = board.name
    members: dict[str, list[str]] = {}
    for board in boards:
        members.setdefault(root(board.name), []).append(board.name)
    return {name: "+".join(sorted(members[root(name)])) for name in parent}


def _hardware(board: Board) -> list[tuple[str, str]]:
    """The boards a pair drives: ("place", name) or (environment file, target); none for a virtual pair (each
    process boots its own QEMU), nor for a place asked for by tags: the coordinator hands such pairs a place of
    their own, or makes them wait."""
    if board.config.vlab:
        return []
    keys = [
        ("place", role.place.name) if role.place is not None else (str(board.env_path), role.target)
        for role in board.config.roles.values()
        if role.place is None or role.place.name is not None
    ]
    return list(dict.fromkeys(keys))


def locks(boards: Iterable[Board]) -> list[str]:
    """The lock names a CI build takes for these pairs: one per board they drive (`hil-board-<target>`,
    `hil-place-<place>`), so that two builds whose pairs share a board (two pairs on one board's two USB ports)
    never drive it at once; a virtual pair, which shares no board, locks its own name (`hil-pair-<pair>`)."""
    names = set()
    for board in boards:
        keys = _hardware(board)
        names.update(f"hil-{'place' if kind == 'place' else 'board'}-{name}" for kind, name in keys)
        if not keys:
            names.add(f"hil-pair-{board.name}")
    return sorted(names)
