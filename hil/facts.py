"""The facts recorded with every result: typed where hil reads them, a free-form dict for what only a person reads.

The lab writes a pair's facts (hil.lab.pair: where it ran, the link, each board and its identity), `perf.check`
and the final verdict a result's (band source, standard floor, loads, operating point, integrity); the reports
and the results database read these fields. results.json keeps them as one flat dict of strings: a field by
its name ("link_speed"), a board's as "<field>.<target>" ("kernel.vboard", "serial.vboard"), the notes beside
them; `from_dict` reads any results.json written before, a key it does not know kept as a note.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass
class BoardIdentity:
    """Which board it was (hil.lab.board.identity): what it says of itself, None where it says nothing."""

    model: str | None = None  # device-tree model, else the DMI product name (x86, QEMU)
    serial: str | None = None  # device-tree serial-number, else the DMI product serial
    mac: str | None = None  # the burnt-in address of its first Ethernet interface
    place: str | None = None  # the labgrid place it was leased on (a pair on a shared lab)


@dataclass
class BoardFacts:
    """One board (labgrid target) of a pair, as its last boot found it."""

    arch: str | None = None  # uname -m
    kernel: str | None = None  # uname -r
    bootloader: str | None = None  # U-Boot's `version`, when its strategy asked it
    build: str | None = None  # what the board said of the build under test after its last boot
    programs: str | None = None  # hil's programs deployed on it (hil.lab.board.deploy)
    boot: str | None = None  # its last boot's time to shell and power-ons this session
    tuning: str | None = None  # the tuning profile applied while measuring (hil.lab.board.tuning)
    identity: BoardIdentity = field(default_factory=BoardIdentity)


_BOARD = [f.name for f in fields(BoardFacts) if f.name != "identity"]
_IDENTITY = [f.name for f in fields(BoardIdentity)]


@dataclass
class Facts:
    # Where and on what (hil.lab.pair)
    lab: str | None = None  # the labgrid environment file on this PC, or the places on a coordinator
    coordinator: str | None = None
    build: str | None = None  # the build under test (hil.build)
    kernel: str | None = None  # every board's, joined
    arch: str | None = None
    link: str | None = None  # as boards.yaml declares it
    link_speed: str | None = None  # as it negotiated or trained (BoardPair.record_link)
    link_driver: str | None = None  # a UDC module loaded for this test, with its parameters
    clock: str | None = None  # the lab clock the figures were measured on: real or virtual (boards.yaml `clock`)
    # How the figure was judged (hil.perf, hil.verdict.final)
    band_source: str | None = None  # where boards.yaml's band comes from
    standard_floor: str | None = None  # the floor a standard sets for the link
    baseline: str | None = None  # why no comparison was made
    pc_load: str | None = None
    pc_busy: str | None = None
    operating_point: str | None = None
    operating_point_moved: str | None = None
    integrity: str | None = None
    cpu_load: str | None = None
    cpu_saturated: str | None = None
    interface_errors: str | None = None
    interface_errors_grew: str | None = None
    boards: dict[str, BoardFacts] = field(default_factory=dict)  # by labgrid target name
    notes: dict[str, Any] = field(default_factory=dict)  # what only a person reads: tool versions, devices

    def note(self, notes: Mapping[str, Any]) -> None:
        """Add facts only a person reads (a tool's version, the device measured). A typed fact's name is refused:
        set its field, so that what hil reads has one writer."""
        typed = [name for name in notes if name in _TYPED or (name.partition(".")[0] in _PER_BOARD and "." in name)]
        if typed:
            raise ValueError(f"{', '.join(typed)}: typed facts (hil.facts.Facts), set by their fields, not as notes")
        self.notes.update(notes)

    def board(self, target: str) -> BoardFacts:
        """The facts of one board, made on first use."""
        return self.boards.setdefault(target, BoardFacts())

    @property
    def link_seen(self) -> str | None:
        """The link as it negotiated or trained, else as declared: the reports' link."""
        return self.link_speed or self.link

    def copy(self) -> Facts:
        return copy.deepcopy(self)

    def identity(self) -> dict[str, str]:
        """Which board it was, flat (the results database's board_identity): where it ran, and each board's
        architecture, kernel, boot loader, build, model, serial number, MAC and place, where known."""
        per_board = ("arch", "kernel", "bootloader", "build", *_IDENTITY)
        flat = self.to_dict().items()
        return {key: value for key, value in flat if key == "lab" or ("." in key and key.split(".")[0] in per_board)}

    def to_dict(self) -> dict[str, Any]:
        """The flat dict results.json holds (module docstring)."""
        flat = dict(self.notes)
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, str):
                flat[item.name] = value
        for target, board in self.boards.items():
            values = {name: getattr(board, name) for name in _BOARD}
            values |= {name: getattr(board.identity, name) for name in _IDENTITY}
            flat.update({f"{name}.{target}": value for name, value in values.items() if value is not None})
        return flat

    @classmethod
    def from_dict(cls, flat: dict[str, Any]) -> Facts:
        facts = cls()
        for key, value in flat.items():
            name, _, target = key.partition(".")
            text = isinstance(value, str)
            if text and not target and name in _TYPED:
                setattr(facts, name, value)
            elif text and target and name in _PER_BOARD:
                board = facts.board(target)
                setattr(board.identity if name in _IDENTITY else board, name, value)
            else:
                facts.notes[key] = value
        return facts


_TYPED = {item.name for item in fields(Facts)} - {"boards", "notes"}
_PER_BOARD = {*_BOARD, *_IDENTITY}


# Of a board's identity (Facts.identity), what says what it ran rather than which board it was.
SOFTWARE_FACTS = ("kernel.", "bootloader.", "build")


def board_of(identity: dict[str, Any] | None) -> dict[str, Any]:
    """Of a stored `board_identity`, what tells one board from another (not the build it ran)."""
    return {name: value for name, value in (identity or {}).items() if not name.startswith(SOFTWARE_FACTS)}


def other_board(references: list[dict[str, Any]], candidate: dict[str, Any]) -> str | None:
    """'reference measured on board X, candidate on Y' when a reference's board (board_of) differs from the
    candidate's in a fact both recorded; None when they agree or nothing tells."""
    differ = []
    for reference in references:
        keys = sorted(k for k in reference.keys() & candidate.keys() if reference[k] != candidate[k])
        if keys and (reference, keys) not in differ:
            differ.append((reference, keys))
    if not differ:
        return None
    keys = sorted({key for _, some in differ for key in some})
    described = " and ".join(", ".join(f"{k} {reference.get(k, '?')}" for k in keys) for reference, _ in differ)
    return f"reference measured on board {described}, candidate on {', '.join(f'{k} {candidate[k]}' for k in keys)}"
