"""Crash-safe file writing, bounded file reading and strict JSON conversion shared by the report writers.

A reader (Jenkins archiving, a release engineer after Ctrl-C) must never see a half-written file:
every writer here goes through a temporary file in the same directory, fsync and os.replace. That rename
is only for a regular file (or a new one): a device, a FIFO or a symlink at the path is written in place
(a symlink to a regular file: its target is replaced), never renamed over (`--json /dev/full` as root must
not turn the device into a file).

Every input goes through `read_bytes`: a regular file (a FIFO named *.json would block a reader forever, a
symlink to /dev/zero never ends), at most MAX_INPUT_BYTES, read within READ_TIMEOUT_S.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MAX_INPUT_BYTES = 256 * 1024 * 1024  # a results.json of a long matrix run is a few MB; this is no run's
READ_TIMEOUT_S = 60.0  # a regular file on a hung network mount blocks read(): the caller gets an error


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace `path` with `data`: it holds either the old or the new content, never a mix. A path that is not a
    regular file is written in place (see above); a directory or a FIFO nobody reads is an OSError naming it."""
    try:
        target = path.stat()  # follows a symlink: what the link leads to decides
    except FileNotFoundError:
        target = None
    if target is not None and not stat.S_ISREG(target.st_mode):
        _write_in_place(path, data, target.st_mode)
        return
    path = Path(os.path.realpath(path)) if path.is_symlink() else path  # the link stays, its target changes
    path.parent.mkdir(parents=True, exist_ok=True)
    # Same directory: os.replace is only atomic within one filesystem.
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.chmod(0o644)  # mkstemp makes 0600; a CI web server reading the workspace needs to read it
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_directory(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def _write_in_place(path: Path, data: bytes, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "is a directory, not a file to write", str(path))
    # O_NONBLOCK: opening a FIFO without a reader fails (ENXIO) instead of waiting for one forever.
    fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _fsync_directory(directory: Path) -> None:
    # The rename lives in the directory entry: without this a power cut may forget it.
    # Some filesystems refuse fsync on a directory; the data itself is already safe then.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class UnreadableJson(ValueError):
    """A JSON file that cannot be read, decoded or parsed; the message starts with its path."""


def _no_constants(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")  # Infinity and NaN are Python's, not JSON's


def read_bytes(path: Path, *, limit: int = MAX_INPUT_BYTES, timeout_s: float = READ_TIMEOUT_S) -> bytes:
    """The content of the regular file at `path` (a symlink to one is followed), or OSError naming it: not a
    regular file, larger than `limit`, or not read within `timeout_s`."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)  # a FIFO opens without waiting for a writer
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "a device, FIFO or socket"
            raise OSError(f"{path}: {kind}, not a regular file")
        if info.st_size > limit:
            raise OSError(f"{path}: {info.st_size} bytes, more than the {limit} an input may hold")
    except BaseException:
        os.close(fd)
        raise
    got: list[bytes | OSError] = []
    reader = threading.Thread(target=_read_all, args=(fd, limit, got), daemon=True)  # it closes fd
    reader.start()
    reader.join(timeout_s)
    if reader.is_alive():
        raise TimeoutError(f"{path}: not read within {timeout_s:g} s")
    if isinstance(got[0], OSError):
        raise got[0]
    if len(got[0]) > limit:  # grew while read
        raise OSError(f"{path}: more than the {limit} bytes an input may hold")
    return got[0]


def _read_all(fd: int, limit: int, got: list[bytes | OSError]) -> None:
    chunks, size = [], 0
    try:
        while size <= limit and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
        got.append(b"".join(chunks))
    except OSError as exc:
        got.append(exc)
    finally:
        os.close(fd)


def read_text(path: Path) -> str:
    """`read_bytes` decoded as UTF-8 (UnicodeDecodeError when it is not)."""
    return read_bytes(path).decode("utf-8")


def read_json(path: Path) -> Any:
    """A JSON file's document, or UnreadableJson naming the file and what is wrong with it."""
    try:
        text = read_text(path)
    except OSError as exc:
        raise UnreadableJson(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise UnreadableJson(f"{path}: not UTF-8 text: {exc}") from exc
    try:
        return json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError) as exc:
        raise UnreadableJson(f"{path}: not valid JSON: {exc}") from exc


def jsonable(value: Any) -> Any:
    """`value` as plain JSON types: numpy scalars (np.int64 outlier indices) unwrapped, tuples as lists, NaN/inf
    (a degenerate metric's, which json would write as the invalid token `NaN`) as None."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    item = getattr(value, "item", None)  # numpy scalar
    if callable(item):
        return jsonable(item())
    raise TypeError(f"cannot store {type(value).__name__} {value!r} as JSON")


def dumps(value: Any, *, indent: int | None = None) -> str:
    """Strict JSON text: no NaN tokens, numpy scalars unwrapped, newline-terminated."""
    return json.dumps(jsonable(value), indent=indent, allow_nan=False) + "\n"
