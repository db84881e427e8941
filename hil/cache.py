"""hil's build caches under ~/.cache/hil/<name> (the board images of hil.image, the board programs): where
each lives, the hash that names a build by its inputs, and the lock that lets parallel pytest workers asking
at once build it only once."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path


def root(name: str, override_variable: str) -> Path:
    """$override_variable if set, else $XDG_CACHE_HOME/hil/<name> (~/.cache/hil/<name>)."""
    if override_variable in os.environ:
        return Path(os.environ[override_variable])
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hil" / name


def inputs_hash(inputs: dict) -> str:
    """16 hex digits naming a build by everything it depends on (key order does not matter)."""
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:16]


@contextlib.contextmanager
def locked(cache_root: Path) -> Iterator[None]:
    """One builder at a time in `cache_root` (created if missing)."""
    cache_root.mkdir(parents=True, exist_ok=True)
    with (cache_root / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
