"""Paths as the user named them: relative to the working directory when below it, else as they are."""

from __future__ import annotations

from pathlib import Path


def shown(path: Path) -> str:
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(path)
