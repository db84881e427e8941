"""USB device mode's settings views and cross-checks (families usb.msc, usb.uvc, usb.hid, usb.mtp of families.yaml)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hil.catalogue.model import SettingsCheck


def _fits_backing_store(name: str, why: str) -> SettingsCheck:
    def check(values: Mapping[str, Any]) -> str | None:
        if values[name] > values["msc.backing_mb"]:
            return f"{name} ({values[name]}) is larger than msc.backing_mb ({values['msc.backing_mb']}): {why}"
        return None

    return check


_transfer_fits = _fits_backing_store("msc.transfer_mb", "dd would run off the end of the disk")
_fs_file_fits = _fits_backing_store("msc.fs_transfer_mb", "the file cannot fit on the disk")


def _backing_dir_absolute(values: Mapping[str, Any]) -> str | None:
    directory = values["msc.backing_dir"]
    if not directory.startswith("/") or not directory.isprintable():
        return f"msc.backing_dir ({directory!r}) must be an absolute path on the device board"
    return None


@dataclass(frozen=True)
class MscSettings:
    backing_mb: int
    backing_dir: str
    transfer_mb: int
    fs: str
    fs_transfer_mb: int

    @property
    def backing_file(self) -> str:
        return f"{self.backing_dir.rstrip('/')}/hil-msc-lun0.img"


@dataclass(frozen=True)
class UvcSettings:
    frames: int
    frame_timeout_s: int
    bulk: bool
    gadgetfs: bool


@dataclass(frozen=True)
class HidSettings:
    reports: int


@dataclass(frozen=True)
class MtpSettings:
    object_mb: int
    timeout_s: int
