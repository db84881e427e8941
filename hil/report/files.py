"""Crash-safe file writing and strict JSON conversion shared by the report writers.

A reader (Jenkins archiving, a release engineer after Ctrl-C) must never see a half-written file:
every writer here goes through a temporary file in the same directory, fsync and os.replace.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that it holds either the old or the new content, never a mix."""
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


def read_json(path: Path) -> Any:
    """A JSON file's document, or UnreadableJson naming the file and what is wrong with it."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UnreadableJson(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise UnreadableJson(f"{path}: not UTF-8 text: {exc}") from exc
    try:
        return json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError) as exc:
        raise UnreadableJson(f"{path}: not valid JSON: {exc}") from exc


def jsonable(value: Any) -> Any:
    """`value` as plain JSON types: numpy scalars unwrapped, tuples as lists, NaN/inf as None.

    The statistics may hand over numpy scalars (np.int64 outlier indices do not serialize) and a
    degenerate metric may produce NaN, which json would write as the invalid token `NaN`.
    """
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


def dumps(value: Any, *, indent: int | None = None, sort_keys: bool = False) -> str:
    """Strict JSON text: no NaN tokens, numpy scalars unwrapped, newline-terminated."""
    return json.dumps(jsonable(value), indent=indent, sort_keys=sort_keys, allow_nan=False) + "\n"
