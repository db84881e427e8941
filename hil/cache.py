"""hil's build caches under ~/.cache/hil/<name> (the virtual lab image, the bench's SD card, the board
programs): where each lives, the hash that names a build by its inputs, and the lock that lets parallel
pytest workers asking at once build it only once."""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from hil.errors import VlabImageError


def root(name: str, override_variable: str) -> Path:
    """$override_variable if set, else $XDG_CACHE_HOME/hil/<name> (~/.cache/hil/<name>)."""
    if override_variable in os.environ:
        return Path(os.environ[override_variable])
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "hil" / name


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


def ensure_built(
    cache_root: Path, inputs: dict, build: Callable[[Path], None], *, what: str, force: bool, log: Callable[[str], None]
) -> Path:
    """The directory of the build of `inputs` (a board image: the virtual lab's, the bench's SD card), made by
    `build(directory)` first when missing or `force`d; one builder at a time (parallel pytest workers)."""
    target = cache_root / inputs_hash(inputs)
    with locked(cache_root):
        if force and target.exists():
            shutil.rmtree(target)
        if not (target / "manifest.json").is_file():
            started = time.monotonic()
            kernel = f"kernel {inputs['kernel_version']}" + (f", {inputs['arch']}" if "arch" in inputs else "")
            log(f"{what}: building image {target.name} ({kernel})")
            build(target)
            log(f"{what}: built in {time.monotonic() - started:.1f} s: {target}")
    return target


def image_main(argv: list[str] | None, prog: str, description: str, ensure: Callable[..., object], name: str) -> int:
    """The command line of an image builder: build or reuse it, print its directory."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--cache", type=Path, default=None, help=f"cache root (default: ~/.cache/hil/{name})")
    parser.add_argument("--force", action="store_true", help="rebuild even when the cached build is current")
    args = parser.parse_args(argv)
    try:
        image = ensure(args.cache, force=args.force, log=lambda msg: print(msg, file=sys.stderr))
    except VlabImageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(image.directory)  # type: ignore[attr-defined]
    return 0
