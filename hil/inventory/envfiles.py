"""Where a pair's labgrid environment file is: relative to the inventory, or shipped with hil.

`env: lab/rk3399.yaml` is a file beside the inventory (the usual case: a lab keeps its env files with its
boards.yaml). `env: hil:vlab/env.yaml` is a file inside the installed hil package: an inventory kept outside
hil's repository (a BSP team's own suite on top of a released hil) reaches the virtual lab's environment
this way, wherever pip put hil.
"""

from __future__ import annotations

from pathlib import Path

PACKAGED = "hil:"
PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # the hil package directory


def resolve(inventory: Path, env: str) -> Path:
    """The env file a pair names, as an absolute path (existence is checked by the caller); ValueError for a
    `hil:` path that leaves the package."""
    if env.startswith(PACKAGED):
        relative = Path(env.removeprefix(PACKAGED))
        if relative.is_absolute() or ".." in relative.parts:
            raise ValueError(f"{env!r}: a path inside the hil package, relative and without '..'")
        return PACKAGE_ROOT / relative
    return (inventory.parent / env).resolve()
