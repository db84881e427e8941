"""Which process on this host holds which place: lets a later run free the places of a run killed outright.

labgrid keeps a killed run's places acquired by `host/user` for ever, so before acquiring a place hil writes
a record under TMPDIR: coordinator, place, reservation, and the process (pid with its start time: a reused
pid is not the holder). A later run of the same host and user releases a place only when it is acquired by
that `host/user`, a record names it, and the recorded process is gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from hil.services import default_run_dir


def records_dir() -> Path:
    return default_run_dir("hil-places")


def process_start(pid: int) -> str | None:
    """The process's start time (clock ticks since boot), or None when it is gone or a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # the command name in (...) may hold spaces
    return None if fields[0] in ("Z", "X") else fields[19]


@dataclass(frozen=True)
class HolderRecord:
    coordinator: str
    place: str
    identity: str  # host/user, as the coordinator shows the place acquired
    token: str  # the reservation the place was allocated to
    pid: int
    start: str | None  # process_start(pid) when the record was written
    since: float

    @classmethod
    def mine(cls, coordinator: str, place: str, identity: str, token: str) -> HolderRecord:
        pid = os.getpid()
        return cls(coordinator, place, identity, token, pid, process_start(pid), time.time())

    def alive(self) -> bool:
        return process_start(self.pid) == self.start

    def describe(self) -> str:
        since = time.strftime("%H:%M:%S", time.localtime(self.since))
        return f"pid {self.pid} of {self.identity}, holding it since {since}"


def _path(coordinator: str, place: str) -> Path:
    return records_dir() / (re.sub(r"[^A-Za-z0-9._-]", "_", f"{coordinator}--{place}") + ".json")


def write(record: HolderRecord) -> None:
    path = _path(record.coordinator, record.place)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(asdict(record)))
    partial.replace(path)  # a reader sees the old record or the new one, never half of one


def read(coordinator: str, place: str) -> HolderRecord | None:
    try:
        return HolderRecord(**json.loads(_path(coordinator, place).read_text()))
    except (OSError, ValueError, TypeError):
        return None  # no record, or not one hil wrote: nothing proves who holds the place


def records(coordinator: str) -> list[HolderRecord]:
    """Every record of this user for places of `coordinator`."""
    found = []
    for path in sorted(records_dir().glob("*.json")):
        with contextlib.suppress(OSError, ValueError, TypeError):
            record = HolderRecord(**json.loads(path.read_text()))
            if record.coordinator == coordinator and path == _path(coordinator, record.place):
                found.append(record)
    return found


def remove(record: HolderRecord) -> None:
    """Remove the place's record if it is still this one (a later holder may have written its own)."""
    if read(record.coordinator, record.place) == record:
        with contextlib.suppress(FileNotFoundError):
            _path(record.coordinator, record.place).unlink()
