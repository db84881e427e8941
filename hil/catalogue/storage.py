"""The storage families' settings views and cross-checks (nvme and storage.local of families.yaml)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NvmeSettings:
    device: str
    size_mb: int
    runtime_s: int


def _one_place(values: Mapping[str, Any]) -> str | None:
    device, directory = values["local.device"], values["local.dir"]
    if device and directory:  # neither: the pair does not measure its storage (the case says so if asked to)
        return (
            "set one of local.device (a block device hil formats and mounts: its data is lost) and local.dir "
            f"(a directory on a mounted eMMC/SD filesystem), not both; got device={device!r}, dir={directory!r}"
        )
    for name, path in (("local.device", device), ("local.dir", directory)):
        if path and not path.startswith("/"):
            return f"{name} ({path!r}) must be an absolute path on the board"
    return None


@dataclass(frozen=True)
class LocalSettings:
    role: str
    device: str
    dir: str
    fs: str
    module: str
    file_mb: int
