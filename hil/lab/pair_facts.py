"""A pair's facts for a result (hil.facts): its link as declared, each board as its last boot found it."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from hil.facts import Facts
from hil.inventory.schema import UsbLink
from hil.lab.board.identify import identify
from hil.lab.board.role import one_per_board

if TYPE_CHECKING:
    from hil.lab.pair import BoardPair


def facts_now(pair: BoardPair) -> Facts:
    """The pair's facts, a copy: each board identified once per boot, its boot loader, build and last boot."""
    facts, link = pair.facts, pair.link
    if facts.link is None:  # as boards.yaml declares it (what it negotiated is BoardPair.record_link's)
        usb = isinstance(link, UsbLink)
        declared = f"USB {link.speed} speed" if usb else f"PCIe Gen{link.gen} x{link.lanes}, MPS {link.max_payload} B"
        facts.link = declared + (" (emulated)" if link.emulated else "")
    for role in one_per_board(pair.roles.values()):
        board, strategy = facts.board(role.target.name), role.strategy
        if pair.identified.get(role.target.name) != role.power_cycles:
            board.arch, board.kernel, identity = identify(role)
            board.identity = replace(identity, place=board.identity.place)
            pair.identified[role.target.name] = role.power_cycles
        if strategy is None:
            continue
        board.bootloader = getattr(strategy, "bootloader_version", None) or board.bootloader
        if strategy.build is not None:  # the build it was given, and what it said of it after its last boot
            facts.build = strategy.build.label
            board.build = strategy.build_view or "not checked yet"
        if strategy.boot_times_s:
            board.boot = f"{strategy.boot_times_s[-1]:.1f} s to shell, {strategy.power_cycles} power-on(s) this session"
    facts.kernel = ", ".join(sorted({board.kernel for board in facts.boards.values() if board.kernel})) or None
    facts.arch = ", ".join(sorted({board.arch for board in facts.boards.values() if board.arch})) or None
    return facts.copy()
