"""hil: hardware-in-the-loop USB and PCIe performance gates for embedded Linux boards."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "matrix"]


def __getattr__(name: str) -> Any:
    # `hil.matrix` needs pytest; plain modules (the image builder, the report writers) must not drag it in.
    if name == "matrix":
        from hil.parametrization import matrix

        return matrix
    raise AttributeError(f"module 'hil' has no attribute {name!r}")
