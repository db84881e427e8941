"""The usb.camera family's settings view (families.yaml)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CameraSettings:
    device: str
    frames: int
    frame_timeout_s: int
    gadgetfs: bool
