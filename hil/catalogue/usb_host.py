"""USB host mode's settings views and cross-checks (families usb.disk and usb.resume of families.yaml)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

VFAT_MAX_FILE_MB = 4095  # FAT32 holds files up to 4 GiB - 1 byte


def _copy_file_fits(values: Mapping[str, Any]) -> str | None:
    if values["disk.fs"] == "vfat" and values["disk.cp_file_mb"] > VFAT_MAX_FILE_MB:
        return (
            f"disk.cp_file_mb ({values['disk.cp_file_mb']}) is larger than vfat's largest file "
            f"({VFAT_MAX_FILE_MB} MiB): choose disk.fs ext4 or a smaller file"
        )
    if not values["disk.cp_dir"].startswith("/"):
        return f"disk.cp_dir ({values['disk.cp_dir']!r}) must be an absolute path on the board"
    return None


def _together_are_other_disks(values: Mapping[str, Any]) -> str | None:
    serials = [values["disk.serial"], *values["disk.together"].split()]
    if len(serials) > 1 and len(set(serials)) != len(serials):
        return f"disk.together ({values['disk.together']!r}) names a disk twice, or disk.serial's"
    if len(serials) > 1 and not values["disk.serial"]:
        return "disk.together names further disks: set disk.serial too (the first of them)"
    return None


@dataclass(frozen=True)
class DiskSettings:
    serial: str
    protocol: str
    transfer_mb: int
    fs: str
    cp_file_mb: int
    cp_dir: str
    together: str
    pc_serial: str

    @property
    def serials(self) -> list[str]:
        """Every disk of the pair: disk.serial's, then disk.together's."""
        return [self.serial, *self.together.split()]

    @property
    def on_the_pc(self) -> str:
        """The serial of the disk usb.disk.pc.* measures on the lab PC: disk.pc_serial's, else disk.serial's."""
        return self.pc_serial or self.serial


@dataclass(frozen=True)
class ResumeSettings:
    serial: str
    autosuspend_ms: int
    sleep: str
    wake_s: int
