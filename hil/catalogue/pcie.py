"""The pcie family's settings view and cross-check (families.yaml)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def _bar_access_fits(values: Mapping[str, Any]) -> str | None:
    if values["pcie.bar_width"] not in (32, 64):
        return f"pcie.bar_width ({values['pcie.bar_width']}) must be 32 or 64 (bits per load/store)"
    return None


@dataclass(frozen=True)
class PcieSettings:
    ep_bdf: str
    dma_tool: str
    dma_side: str
    dma_total_mb: int
    bar: int
    bar_kib: int
    bar_width: int
    bar_loops: int
    irq_seconds: int
