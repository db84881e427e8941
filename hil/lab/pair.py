"""A board pair at run time: its roles on labgrid targets, its link, its facts, the places it holds."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from typing import Any, TypeVar

from labgrid import Environment

from hil.errors import LabError
from hil.facts import Facts
from hil.inventory.loader import Board
from hil.inventory.schema import Link, UsbLink
from hil.lab.board import places
from hil.lab.board.provision import use_clock
from hil.lab.board.role import Role, one_per_board
from hil.lab.usb_gadget import udc
from hil.paths import shown

View = TypeVar("View")


@dataclass
class BoardPair:
    board: Board
    roles: dict[str, Role] = field(default_factory=dict)
    facts: Facts = field(default_factory=Facts)  # every result's (hil.facts): where, the link, each board
    lease: places.Lease | None = None  # the places it holds, when it runs on a shared lab
    identified: dict[str, int] = field(default_factory=dict)  # target: its power-ons when last identified
    measured: dict[str, str] = field(default_factory=dict)  # result key: the test that measured it in this run

    @classmethod
    def on(cls, board: Board, env: Environment, lease: places.Lease | None = None) -> BoardPair:
        """The pair's roles on the targets of `env`; its facts say where it runs (the places it leased, or this PC)."""
        roles = {}
        for role_name, role_cfg in board.config.roles.items():
            target = env.get_target(role_cfg.target)
            if target is None:
                raise LabError(f"{board.name}: target {role_cfg.target!r} missing from {board.env_path}")
            roles[role_name] = Role(role_name, target, board.name)
        pair = cls(board=board, roles=roles, lease=lease)
        pair.facts.clock = board.config.clock_name
        if lease is not None:
            lease.record(pair.facts)  # every result names the place and exporter it ran on
        else:
            pair.facts.lab = f"labgrid environment {shown(board.env_path)} on this PC ({socket.gethostname()})"
        return pair

    @property
    def name(self) -> str:
        return self.board.name

    def role(self, name: str) -> Role:
        try:
            return self.roles[name]
        except KeyError:
            raise LabError(f"{self.name} has no {name!r} role (roles: {', '.join(self.roles)})") from None

    @property
    def host(self) -> Role:
        return self.role("host")

    @property
    def device(self) -> Role:
        return self.role("device")

    @property
    def link(self) -> Link:
        return self.board.config.link

    def record_link(self, negotiated: str) -> None:
        """The link as it negotiated or trained (USB speed; PCIe generation, width, payload): the reports' link."""
        self.facts.link_speed = negotiated

    def note(self, **notes: Any) -> None:
        """Facts only a person reads (the device measured, its block queue): hil.facts.Facts.note."""
        self.facts.note(notes)

    def settings(self, view: type[View], *, required: tuple[str, ...] = (), example: str = "") -> View:
        """A family's settings on this pair, typed: `pair.settings(MscSettings).transfer_mb`; see Board.settings."""
        return self.board.settings(view, required=required, example=example)

    def mark_suspect(self, reason: str) -> None:
        """Have the next `prepare` power-cycle every board of the pair."""
        for role in self.roles.values():
            role.mark_suspect(reason)

    def stop_backgrounds(self) -> None:
        """Stop background commands a test left running on any role (a `with` block cut short)."""
        if self.lease is not None and self.lease.released:
            return  # given back at an interrupt (powered off first): the boards are not ours any more
        for role in self.roles.values():
            role.stop_backgrounds()

    def prepare(self, *, suspends: bool = False) -> None:
        """Before each test: every role answers on the pair's clock, booted for a test that suspends the boards to
        RAM when it does (hil.lab.board.provision.use_clock), the link's UDC is loaded as declared."""
        if self.lease is not None and self.lease.released:
            raise LabError(f"{self.name}: its places were released (the run was interrupted)")
        for role in one_per_board(self.roles.values()):
            # a virtual board on another clock, or booted for the other kind of test, is powered off
            use_clock(role.target, self.board.config.clock, self.board.config.virtual_mips, suspends=suspends)
            role.ensure_ready()
        if isinstance(self.link, UsbLink) and (loaded := udc.ensure_link_driver(self.device, self.link)):
            self.facts.link_driver = loaded  # a freshly loaded UDC drops whatever was bound: the report shows it
