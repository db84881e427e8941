"""Board pairs on a shared lab: labgrid places reserved through the coordinator, locked, always released.

hil acts through `labgrid-client` (the commands a lab engineer types) and reads places and reservations as
data (hil.lab.board.coordinator_view), never from the listings labgrid prints for people:

1. `reserve --shell KEY=VALUE...` with the role's filter, then `wait TOKEN` for at most `coordinator.wait_s`
   (past that, an ERROR naming who holds each matching place, never a hang);
2. `-p +TOKEN acquire`: the allocated place is locked;
3. a labgrid Environment from the pair's env file whose `RemotePlace` names that place;
4. on every way out (including Ctrl-C and SIGTERM via hil.signals): power off, `release`, `cancel-reservation`.

With `LG_TOKEN` or `LG_PLACE` set, the roles whose filter that place satisfies use it instead; hil locks it
only if nobody has, and gives back only what it took. A run killed with SIGKILL has no way out: while
waiting, hil releases the matching places a dead hil process of this host and user still holds
(hil.lab.board.holders), with `release-from HOST/USER`, never a place of a live run.
"""

from __future__ import annotations

import contextlib
import ctypes
import getpass
import logging
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labgrid import Environment

from hil.errors import LabError
from hil.facts import Facts
from hil.inventory.loader import Board
from hil.inventory.schema import PlaceConfig
from hil.lab.board import coordinator_view, holders
from hil.lab.board.coordinator_view import PlaceView, reserved_for

log = logging.getLogger("hil.remote")
CALL_TIMEOUT_S = 30.0  # one labgrid-client call; a coordinator that does not answer in this is gone
POLL_S = 1.0


class PlaceUnavailable(LabError):
    """No place matching a pair's filter became free within the bound (names who holds them)."""


class CoordinatorRefused(LabError):
    """labgrid-client answered, with an error: what it was asked did not happen."""


def client_identity() -> str:
    """`host/user` as labgrid-client and RemotePlace name this process to the coordinator."""
    return f"{os.environ.get('LG_HOSTNAME', socket.gethostname())}/{os.environ.get('LG_USERNAME', getpass.getuser())}"


def labgrid_client_program() -> str:
    """The labgrid-client of the labgrid hil runs with (beside this Python), else the one on PATH."""
    beside = Path(sys.executable).parent / "labgrid-client"
    found = str(beside) if beside.is_file() else shutil.which("labgrid-client")
    if found is None:
        raise LabError("labgrid-client is not installed (it comes with labgrid: pip install labgrid)")
    return found


def _die_with_parent() -> None:
    """In a child: be sent SIGTERM when hil dies, even by SIGKILL (a `wait` must not outlive its run)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _environ() -> dict[str, str]:
    """This environment without labgrid's own selectors (with LG_ENV set, `release` would release the places
    of that env file instead of the one named)."""
    return {k: v for k, v in os.environ.items() if k not in ("LG_PLACE", "LG_TOKEN", "LG_ENV", "LG_STATE")}


def _last_words(said: str | None, returncode: int) -> str:
    """The line a failed labgrid-client ended on (its error), else its exit status."""
    lines = (said or "").strip().splitlines()
    return lines[-1] if lines else f"exit status {returncode}"


class LabgridClient:
    """`labgrid-client -x ADDRESS ...`: every call bounded, every failure a LabError with labgrid's words."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.program = labgrid_client_program()

    def _command(self, args: tuple[str, ...]) -> list[str]:
        return [self.program, "-x", self.address, *args]

    def __call__(self, *args: str, timeout: float = CALL_TIMEOUT_S) -> str:
        try:
            done = subprocess.run(
                self._command(args), capture_output=True, text=True, timeout=timeout, env=_environ(), check=False
            )
        except subprocess.TimeoutExpired as exc:
            raise LabError(
                f"coordinator {self.address} did not answer `labgrid-client {' '.join(args)}` within {timeout:.0f} s"
            ) from exc
        if done.returncode != 0:
            said = _last_words(done.stderr.strip() or done.stdout, done.returncode)
            raise CoordinatorRefused(f"coordinator {self.address}: `labgrid-client {' '.join(args)}` failed: {said}")
        return done.stdout

    def detached(self, calls: list[tuple[str, ...]]) -> str | None:
        """Run the calls one after the other in a process that outlives this one; what went wrong, or None."""
        script = "; ".join(shlex.join(self._command(args)) + " || s=1" for args in calls)
        process = self._popen(["sh", "-c", f"s=0; {script}; exit $s"], start_new_session=True)
        try:
            _, said = process.communicate(timeout=CALL_TIMEOUT_S * len(calls))
        except subprocess.TimeoutExpired:
            return f"no answer within {CALL_TIMEOUT_S * len(calls):.0f} s"
        return None if process.returncode == 0 else _last_words(said, process.returncode)

    def spawn(self, *args: str) -> subprocess.Popen[str]:
        return self._popen(self._command(args), preexec_fn=_die_with_parent)

    def _popen(self, argv: list[str], **how: Any) -> subprocess.Popen[str]:
        """A process in the background: its errors read, its output dropped."""
        return subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_environ(), **how
        )

    def places(self) -> dict[str, PlaceView]:
        return coordinator_view.places(self.address)


@dataclass
class HeldPlace:
    """A place one target of a pair runs on, and what hil took to hold it (and so must give back)."""

    name: str
    token: str
    exporters: tuple[str, ...]  # known once the place is locked: labgrid lists a place's resources then
    waited_s: float
    record: holders.HolderRecord | None = None  # this process as the holder, on this host
    locked_by_hil: bool = True  # False: the user had acquired it (LG_PLACE/LG_TOKEN): the lock stays theirs
    reserved_by_hil: bool = True  # False: the reservation is the user's (LG_TOKEN): never cancelled by hil

    def describe(self) -> str:
        return f"{self.name} (exporter {', '.join(self.exporters) or 'none'})"


@dataclass(frozen=True)
class UsersChoice:
    """The place a user chose with labgrid's own variables: LG_TOKEN (a reservation) or LG_PLACE."""

    token: str | None
    place: str | None

    @classmethod
    def from_environ(cls) -> UsersChoice | None:
        token, place = os.environ.get("LG_TOKEN") or None, os.environ.get("LG_PLACE") or None
        return cls(token, place) if token or place else None

    def describe(self) -> str:
        return f"LG_TOKEN={self.token}" if self.token else f"LG_PLACE={self.place}"


class Coordinator:
    """hil's side of the labgrid coordinator: reserve, acquire, release, and who holds what."""

    def __init__(self, address: str, users_choice: UsersChoice | None = None) -> None:
        self.address = address
        self.client = LabgridClient(address)
        self.identity = client_identity()
        self.users_choice = users_choice

    def matching(self, wanted: PlaceConfig) -> dict[str, PlaceView]:
        filters = wanted.filters()
        return {name: place for name, place in self.client.places().items() if place.satisfies(filters)}

    def reserve(self, wanted: PlaceConfig, wait_s: float, holding: dict[str, HeldPlace], key: str) -> HeldPlace:
        """The place for a role: the user's choice (LG_TOKEN/LG_PLACE), else reserved, waited for, acquired.

        The place goes into `holding[key]` the moment it is locked, before any other call: a SIGTERM that
        lands after the lock then finds it where the lease's release looks."""
        if self.users_choice is not None:
            return self._take_users_choice(self.users_choice, wanted, wait_s, holding, key)
        self.reclaim(wanted)
        if not self.matching(wanted):
            known = ", ".join(f"{n} ({_tags(p.tags)})" for n, p in sorted(self.client.places().items())) or "none"
            raise LabError(f"no place on coordinator {self.address} matches {wanted.describe()} (places: {known})")
        filters = [f"{tag}={value}" for tag, value in wanted.filters().items()]
        token = self._token(self.client("reserve", "--shell", *filters))
        started = time.monotonic()
        held = HeldPlace("", token, (), 0.0)
        with self._given_back_on_failure(held, holding, key):
            held.name = self._wait(token, wanted, wait_s, started)
            self._take(held, f"+{token}", holding, key, started)
        log.info("acquired place %s for %s after %.1f s", held.describe(), wanted.describe(), held.waited_s)
        return held

    def _take(self, held: HeldPlace, place: str, holding: dict[str, HeldPlace], key: str, started: float) -> None:
        """Lock `place` (a name or +TOKEN) if hil is to, and put it in `holding[key]` at once."""
        if held.locked_by_hil:
            # Recorded before the lock is taken: a kill between the two must not leave a lock nobody can trace.
            token = held.token if held.reserved_by_hil else ""  # reclaim cancels it: never the user's
            held.record = holders.HolderRecord.mine(self.address, held.name, self.identity, token)
            holders.write(held.record)  # known to the give-back before it is written, as before the lock
            self.client("-p", place, "acquire")
        holding[key] = held
        held.waited_s = time.monotonic() - started
        held.exporters = self.client.places()[held.name].exporters

    @contextlib.contextmanager
    def _given_back_on_failure(self, held: HeldPlace, holding: dict[str, HeldPlace], key: str) -> Iterator[None]:
        """Whatever fails before the place is in `holding[key]` (a bound, Ctrl-C, SIGTERM) gives back what hil
        may hold of it: a reservation or lock must not hold a place for nobody."""
        try:
            yield
        except BaseException as exc:
            if key not in holding:
                held.locked_by_hil = held.record is not None and not isinstance(exc, CoordinatorRefused)
                self.release(held, quiet=True)
            raise

    def _token(self, printed: str) -> str:
        found = re.search(r"^export LG_TOKEN=(\S+)$", printed, re.MULTILINE)
        if found is None:
            raise LabError(f"coordinator {self.address}: `labgrid-client reserve` printed no token: {printed!r}")
        return found.group(1)

    def _wait(self, token: str, wanted: PlaceConfig, wait_s: float, started: float) -> str:
        """`labgrid-client wait TOKEN` (it keeps the reservation alive), bounded; the allocated place."""
        waiter = self.client.spawn("wait", token)
        try:
            while True:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    waiter.wait(POLL_S)
                if waiter.poll() is not None:
                    break
                if self.reclaim(wanted):
                    continue  # the coordinator allocates the freed place at once
                if time.monotonic() - started > wait_s:
                    raise PlaceUnavailable(
                        f"no place matching {wanted.describe()} became free within {wait_s:g} s: "
                        + self.holders(wanted)
                    )
        finally:
            if waiter.poll() is None:
                waiter.terminate()
            _, said = waiter.communicate(timeout=10)
        name = reserved_for(self.client.places(), token)
        if waiter.returncode != 0 or name is None:
            raise LabError(f"reservation {token} for {wanted.describe()} got no place ({(said or '').strip()})")
        return name

    def _take_users_choice(
        self, choice: UsersChoice, wanted: PlaceConfig, wait_s: float, holding: dict[str, HeldPlace], key: str
    ) -> HeldPlace:
        started = time.monotonic()
        if choice.token:
            # Not allocated yet, or no such reservation: `labgrid-client wait` waits, or says why it cannot.
            name = reserved_for(self.client.places(), choice.token) or self._wait(choice.token, wanted, wait_s, started)
        else:
            assert choice.place
            named = [p.name for p in self.client.places().values() if choice.place in (p.name, *p.aliases)]
            if not named:
                raise LabError(f"{choice.describe()}: no such place (or alias) on coordinator {self.address}")
            name = named[0]
        place = self.client.places()[name]
        if not place.satisfies(wanted.filters()):
            raise LabError(
                f"{choice.describe()} is place {name} ({_tags(place.tags)}), which does not match "
                f"{wanted.describe()}: unset it, or deselect the pairs it does not suit (-k)"
            )
        if place.acquired not in (None, self.identity):
            raise PlaceUnavailable(f"{choice.describe()}: place {name} is acquired by {place.acquired}")
        # Acquired by hand before the run (by this identity): used, and left acquired.
        held = HeldPlace(name, choice.token or "", (), 0.0, locked_by_hil=place.acquired is None, reserved_by_hil=False)
        with self._given_back_on_failure(held, holding, key):
            self._take(held, f"+{choice.token}" if choice.token else name, holding, key, started)
        log.info("using place %s named by %s", name, choice.describe())
        return held

    def holders(self, wanted: PlaceConfig) -> str:
        """Who holds each place matching `wanted`, for an error message."""
        parts = []
        for name, place in sorted(self.matching(wanted).items()):
            if place.acquired:
                parts.append(f"{name} is acquired by {place.acquired}")
            elif place.reservation:
                parts.append(f"{name} is allocated to reservation {place.reservation}")
            else:
                parts.append(f"{name} is free")
        return "; ".join(parts) or "no place matches"

    def reclaim(self, wanted: PlaceConfig) -> list[str]:
        """Release the places matching `wanted` that a dead hil process of this host and user still holds."""
        dead = {r.place: r for r in holders.records(self.address) if r.identity == self.identity and not r.alive()}
        if not dead:
            return []  # the usual case, decided without asking the coordinator
        freed = []
        for name, place in sorted(self.matching(wanted).items()):
            record = dead.get(name)
            if record is None or place.acquired not in (self.identity, None):
                continue
            if place.acquired is None and (not record.token or place.reservation != record.token):
                continue  # killed before it acquired: only its reservation may still hold the place
            if place.acquired is not None:
                # atomic: released only if still acquired by that identity (a live run may have taken it since)
                self.client("-p", name, "release-from", self.identity)
            if record.token:
                with contextlib.suppress(LabError):  # gone already if it expired
                    self.client("cancel-reservation", record.token)
            holders.remove(record)
            log.warning("released place %s: its holder, %s, is gone (killed?)", name, record.describe())
            freed.append(name)
        return freed

    def release(self, held: HeldPlace, quiet: bool = False) -> None:
        """Give back what hil took for the place: the lock, then the reservation (cancelled while the place is
        still acquired, the coordinator keeps it). Both run in a detached process, which finishes even if this
        one is killed (pytest-xdist kills an interrupted worker after 5 s, and each labgrid-client start costs
        about half a second); failures are logged unless `quiet` (an interrupted acquire may not have locked)."""
        steps = []
        if held.locked_by_hil:
            steps.append(("-p", held.name, "release"))
        if held.reserved_by_hil:
            steps.append(("cancel-reservation", held.token))
        if steps:
            problem = self.client.detached(steps)
            if problem and not quiet:
                log.warning("giving back place %s: %s", held.name, problem)
        if held.record is not None:
            holders.remove(held.record)
        log.info("released place %s", held.name)


def _tags(tags: dict[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(tags.items())) or "no tags"


@dataclass
class Lease:
    """The places of one pair, held while its tests run, and the Environment built on them."""

    coordinator: Coordinator
    held: dict[str, HeldPlace] = field(default_factory=dict)  # by env target name
    env: Environment | None = None
    released: bool = False  # from then on the boards may be someone else's: nothing may touch them

    def record(self, facts: Facts) -> None:
        """Each board's place, and one line for the report's Environment table: where the pair's boards were."""
        for target, held in self.held.items():
            facts.board(target).identity.place = held.describe()
        facts.coordinator = self.coordinator.address
        places = ", ".join(held.describe() for held in self.held.values())
        facts.lab = f"places {places} on coordinator {self.coordinator.address}"

    def release(self) -> None:
        self.released = True
        for held in self.held.values():
            self.coordinator.release(held)
        self.held.clear()


def lease_pair(board: Board, coordinator: Coordinator, wait_s: float) -> Lease:
    """Reserve and acquire the places of a pair's targets, and build its Environment on them."""
    lease = Lease(coordinator)
    try:
        for role in board.config.roles.values():
            if role.place is not None and role.target not in lease.held:
                coordinator.reserve(role.place, wait_s, lease.held, role.target)
        names = [held.name for held in lease.held.values()]
        if len(set(names)) != len(names):
            raise LabError(
                f"{board.name}: its targets ({', '.join(lease.held)}) were given one place, {names[0]} "
                "(LG_PLACE/LG_TOKEN name one place: run the pairs with one target there)"
            )
        lease.env = remote_environment(board.env_path, coordinator.address, {t: h.name for t, h in lease.held.items()})
    except BaseException:
        lease.release()
        raise
    return lease


def remote_environment(env_path: Path, address: str, places: dict[str, str]) -> Environment:
    """The pair's labgrid Environment with each target's RemotePlace naming the place reserved for it."""
    env = Environment(config_file=str(env_path))
    env.config.set_option("coordinator_address", address)
    targets = env.config.data["targets"]
    for target, place in places.items():
        resources = targets[target]["resources"]
        entries = resources if isinstance(resources, list) else [resources]
        for entry in entries:
            if isinstance(entry, dict) and "RemotePlace" in entry:
                entry["RemotePlace"] = {**(entry["RemotePlace"] or {}), "name": place}
    return env
