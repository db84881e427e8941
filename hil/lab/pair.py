"""A board pair at run time: its roles on labgrid targets, its link, and the gadgets it runs.

Environments are loaded once per file and shared, so two pairs on the same targets (the virtual lab's
high-speed and super-speed pairs) share one booted board.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from labgrid import Environment

from hil import programs
from hil.build.manifest import Build
from hil.errors import LabError
from hil.facts import Facts
from hil.inventory.loader import Board
from hil.inventory.schema import Link, UsbLink
from hil.lab.board import deploy, places, shell
from hil.lab.board.identify import identify
from hil.lab.board.provision import provision
from hil.lab.board.role import Role, strategy_of
from hil.lab.storage import queue
from hil.lab.usb_gadget import udc
from hil.lab.usb_gadget.android import AndroidGadget
from hil.lab.usb_gadget.gadget import Function, Gadget, GadgetBackend
from hil.lab.usb_host import usb_enumeration, usbhost
from hil.paths import shown

View = TypeVar("View")


class Environments:
    """labgrid environments by file, created on first use and cleaned up at the end of the session.

    Pairs on places (hil.lab.board.places) get an Environment of their own, built on the places reserved for
    them, and give it back with their lease (`BoardPair.close`).
    """

    def __init__(self, coordinator: str | None = None, *, wait_s: float = 600.0, build: Build | None = None) -> None:
        self.coordinator = coordinator
        self.wait_s = wait_s
        self.build = build  # the build under test: put on every environment's boards before their first power-on
        self._envs: dict[Path, Environment] = {}
        self._remote: places.Coordinator | None = None
        self.leases: list[places.Lease] = []  # held now: released by BoardPair.close or at cleanup

    def lease(self, board: Board) -> places.Lease:
        """Reserve and acquire the places of a pair that names them (waits at most `wait_s` per place)."""
        if self.coordinator is None:
            raise LabError(
                f"{board.name} names labgrid places but no coordinator is set: give --lg-coordinator HOST:PORT, "
                "LG_COORDINATOR, or coordinator/address in boards.yaml"
            )
        if self._remote is None:
            self._remote = places.Coordinator(self.coordinator, places.UsersChoice.from_environ())
        lease = places.lease_pair(board, self._remote, self.wait_s)
        self.leases.append(lease)
        if self.build is not None and lease.env is not None:
            try:
                provision(lease.env, self.build)
            except BaseException:
                self.give_back(lease)
                raise
        return lease

    def give_back(self, lease: places.Lease) -> None:
        """Power the pair's boards off and release its places (every step attempted, once)."""
        if lease not in self.leases:
            return
        try:
            if lease.env is not None:
                _power_off(lease.env)
        finally:
            lease.release()
            if lease in self.leases:
                self.leases.remove(lease)

    def adopt(self, path: Path, env: Environment) -> None:
        """Use `env`, made elsewhere of `path` (labgrid's pytest plugin, from --lg-env), for that file."""
        if self.coordinator:
            env.config.set_option("coordinator_address", self.coordinator)
        self._provision(env)
        self._envs[path.resolve()] = env

    def get(self, path: Path) -> Environment:
        if path not in self._envs:
            env = Environment(config_file=str(path))
            if self.coordinator:
                env.config.set_option("coordinator_address", self.coordinator)
            self._provision(env)
            self._envs[path] = env
        return self._envs[path]

    def _provision(self, env: Environment) -> None:
        if self.build is not None:
            provision(env, self.build)

    def release_all(self) -> None:
        for lease in list(self.leases):
            self.give_back(lease)

    def cleanup(self) -> None:
        try:
            for env in self._envs.values():
                _power_off(env)
            self._envs.clear()
        finally:
            self.release_all()  # a pair whose teardown never ran (an interrupted setup)


def _power_off(env: Environment) -> None:
    for target in env.targets.values():
        # Best effort: a dead board must not keep env.cleanup() (or a place's release) from running.
        with contextlib.suppress(Exception):
            strategy = strategy_of(target)
            if strategy is not None:
                strategy.transition("off")
    env.cleanup()


@dataclass
class GadgetOnLink:
    """A bound gadget as the host sees it: enumerated device, negotiated speed, its nodes."""

    pair: BoardPair
    gadget: GadgetBackend
    usb_device: usbhost.UsbDevice

    def block_device(self, *, timeout_s: float = 30.0) -> str:
        """The host's /dev node of the gadget's disk; its block queue goes into the pair's notes."""
        node = usbhost.wait_for_block_device(self.pair.host, self.usb_device, timeout_s=timeout_s)
        self.pair.note(block_queue=queue.read(self.pair.host, node).describe())
        return node


@dataclass
class BoardPair:
    board: Board
    env: Environment
    roles: dict[str, Role] = field(default_factory=dict)
    facts: Facts = field(default_factory=Facts)  # every result's (hil.facts): where, the link, each board
    lease: places.Lease | None = None  # the places it holds, when it runs on a shared lab
    identified: dict[str, int] = field(default_factory=dict)  # target: its power-ons when last identified

    @classmethod
    def open(cls, board: Board, environments: Environments) -> BoardPair:
        """Roles on the pair's targets; a pair on places first reserves and acquires them (bounded wait)."""
        lease = environments.lease(board) if board.config.remote else None
        try:
            pair = cls._on_env(board, lease.env if lease else environments.get(board.env_path))
        except BaseException:
            if lease is not None:
                environments.give_back(lease)
            raise
        if lease is not None:
            pair.lease = lease
            lease.record(pair.facts)  # every result names the place and exporter it ran on
        else:
            pair.facts.lab = f"labgrid environment {shown(board.env_path)} on this PC ({socket.gethostname()})"
        return pair

    def close(self, environments: Environments) -> None:
        """After the pair's tests: a pair on places powers its boards off and releases them."""
        if self.lease is not None:
            environments.give_back(self.lease)
            self.lease = None

    @classmethod
    def _on_env(cls, board: Board, env: Environment) -> BoardPair:
        roles = {}
        for role_name, role_cfg in board.config.roles.items():
            target = env.get_target(role_cfg.target)
            if target is None:
                raise LabError(f"{board.name}: target {role_cfg.target!r} missing from {board.env_path}")
            roles[role_name] = Role(role_name, target, board.name)
        return cls(board=board, env=env, roles=roles)

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
        """A family's settings on this pair, typed (boards.yaml's, validated at load, or the catalogue's defaults):
        `pair.settings(MscSettings).transfer_mb`; see Board.settings."""
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

    def prepare(self) -> None:
        """Before each test: every role answers (booting or power-cycling it), the link is configured."""
        if self.lease is not None and self.lease.released:
            raise LabError(f"{self.name}: its places were released (the run was interrupted)")
        for role in self._distinct_roles():
            role.ensure_ready()
        cfg = self.link
        if isinstance(cfg, UsbLink) and cfg.driver is not None:
            params = {name: str(value).lower() for name, value in cfg.driver.params.items()}
            if udc.ensure_module(self.device, cfg.driver.module, params):
                # A freshly loaded UDC drops whatever was bound: record it so the report shows the reload.
                self.facts.link_driver = f"{cfg.driver.module} {params}"
        self.facts.link = self.facts.link or _describe_link(cfg)

    def require_tools(self, needed: dict[str, list[str]]) -> None:
        """Every program a test runs is on its role's board: hil's own are deployed there first (cold: built
        and copied; warm: checked), and the missing others, all of them, are one LabError before any sample
        (a role the pair does not have is left to the test)."""
        missing = []
        own, libraries = set(programs.names()), set(programs.libraries())
        for role_name, wanted in needed.items():
            role = self.roles.get(role_name)
            if role is None or not wanted:
                continue
            if (own | libraries) & set(wanted):
                self.facts.board(role.target.name).programs = deploy.ensure(role).describe()
            tools = [name for name in wanted if name not in libraries]  # a library is no command to look for
            if not tools:
                continue
            probe = " ".join(f"command -v {shell.quote(t)} >/dev/null 2>&1 || echo {shell.quote(t)};" for t in tools)
            absent = role.run(probe, timeout=30).split()
            if absent:
                missing.append(f"{role.label} lacks {', '.join(absent)}")
        if missing:
            raise LabError(f"{self.name}: tools missing on the board, nothing measured: {'; '.join(missing)}")

    def _distinct_roles(self) -> list[Role]:
        seen, distinct = set(), []
        for role in self.roles.values():
            if id(role.target) not in seen:
                seen.add(id(role.target))
                distinct.append(role)
        return distinct

    def facts_now(self) -> Facts:
        """The pair's facts for a result, a copy: each board identified once per boot (its architecture, kernel,
        model, serial number and MAC: hil.lab.board.identify, one command), its boot loader, build and last boot
        as its strategy knows them."""
        for role in self._distinct_roles():
            board, strategy = self.facts.board(role.target.name), role.strategy
            if self.identified.get(role.target.name) != role.power_cycles:
                board.arch, board.kernel, identity = identify(role)
                board.identity = replace(identity, place=board.identity.place)
                self.identified[role.target.name] = role.power_cycles
            if strategy is None:
                continue
            board.bootloader = getattr(strategy, "bootloader_version", None) or board.bootloader
            if strategy.build is not None:  # the build it was given, and what it said of it after its last boot
                self.facts.build = strategy.build.label
                board.build = strategy.build_view or "not checked yet"
            if strategy.boot_times_s:
                board.boot = (
                    f"{strategy.boot_times_s[-1]:.1f} s to shell, {strategy.power_cycles} power-on(s) this session"
                )
        boards = self.facts.boards.values()
        self.facts.kernel = ", ".join(sorted({board.kernel for board in boards if board.kernel})) or None
        self.facts.arch = ", ".join(sorted({board.arch for board in boards if board.arch})) or None
        return self.facts.copy()

    @contextmanager
    def gadget(
        self,
        *functions: Function,
        enumerate_timeout_s: float = 30.0,
        attach: Callable[[GadgetBackend], contextlib.AbstractContextManager[Any]] | None = None,
        backend: GadgetBackend | None = None,
    ) -> Iterator[GadgetOnLink]:
        """Run a gadget on the device role, wait for the host to enumerate it, check the link speed.

        The backend is the link's `gadget` in boards.yaml (hil.lab.usb_gadget.gadget): hil's own configfs gadget, or
        Android's switched through sys.usb.config.
        attach: what must run on the device before the host can see the gadget (a UVC gadget stays off
        the bus until its frame source opens the video node); it is left when the gadget goes.
        backend: a gadget that is a program of its own instead of the link's backend running `functions`
        (hil.lab.usb_gadget.uvc_gadgetfs: the GadgetFS bulk camera).
        """
        cfg = self.link
        if not isinstance(cfg, UsbLink) or cfg.udc is None:
            raise LabError(f"{self.name}: gadget tests need a USB link with a `udc` in boards.yaml")
        with (
            backend or self._gadget_backend(cfg, list(functions), enumerate_timeout_s) as gadget,
            attach(gadget) if attach is not None else contextlib.nullcontext(),
        ):
            yield GadgetOnLink(self, gadget, self.enumerated(gadget, timeout_s=enumerate_timeout_s))

    def enumerated(self, gadget: GadgetBackend, *, timeout_s: float) -> usbhost.UsbDevice:
        """The bound gadget as the host role sees it, at the link's speed, or a LabError saying what it saw.

        A host whose target declares a UsbEnumerationDriver (a lab PC) confirms it through pyusb first: what
        a USB program there sees. Then sysfs, the kernel's word (all the virtual lab's host has): the exact
        speed, and the device's sysfs path the tests use.
        """
        cfg = self.link
        self.note(gadget=gadget.describe())
        speed = cfg.speed
        if gadget.max_speed is not None and usbhost.SPEED_MBPS[gadget.max_speed] < usbhost.SPEED_MBPS[speed]:
            speed = gadget.max_speed  # the gadget cannot run faster than this on any link: recorded, not hidden
            self.note(gadget_max_speed=f"{gadget.max_speed} ({gadget.describe()}) on a {cfg.speed}-speed link")
        self.facts.note(usb_enumeration.confirm_gadget(self.host, gadget.identity, speed, timeout_s=timeout_s))
        device = usbhost.wait_for_device(self.host, gadget.serial, timeout_s=timeout_s)
        self.record_link(f"{device.speed_mbps:g} Mb/s ({device.speed})")
        usbhost.require_speed(device, speed, f"{self.name} ({self.host.label})")
        return device

    def _gadget_backend(self, cfg: UsbLink, functions: list[Function], timeout_s: float) -> GadgetBackend:
        assert cfg.udc is not None
        if cfg.gadget == "android":
            # Android's gadget keeps its serial across configurations: the host must drop the old device
            # before the new one is looked for, or the test would find the one that is going away.
            def host_lets_go(serial: str) -> None:
                usbhost.wait_until_gone(self.host, serial, timeout_s=timeout_s)

            return AndroidGadget(self.device, cfg.udc, functions, cfg.android_gadget, on_disconnect=host_lets_go)
        return Gadget(self.device, cfg.udc, functions)


def _describe_link(cfg: Link) -> str:
    if isinstance(cfg, UsbLink):
        text = f"USB {cfg.speed} speed"
    else:
        text = f"PCIe Gen{cfg.gen} x{cfg.lanes}, MPS {cfg.max_payload} B"
    return text + (" (emulated)" if cfg.emulated else "")


def set_vlab_image_env(directory: Path) -> None:
    """labgrid substitutes LG_* variables into !template values: the vlab env file reads this one."""
    os.environ["LG_HIL_VLAB_IMAGE"] = str(directory)
