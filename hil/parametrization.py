"""Test parameters in two sizes: the quick set README command 1 gates on, and the seeds' full matrix.

    @hil.matrix("bs", quick=["64K", "1M"], full=["4K", "64K", "128K", "512K", "1M"], ids="bs={}")
    def test_msc_throughput(pair, perf, bs): ...

`pytest --matrix full` runs every value; the default (`quick`) runs the representative subset. The
quick values must be a subset of the full ones, so a quick run's result keys always exist in a full
run's baseline.

A pair narrows this in boards.yaml: `matrix: full` leaves it out of quick runs (unless `--board` names
it), `only: {bs: [1M]}` keeps just those values of a parameter on it (`runs_on_pair`), and `quick_only`
does the same in quick runs only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

MARKER = "hil_matrix"
SIZES = ("quick", "full")


def matrix(name: str, *, quick: Sequence[Any], full: Sequence[Any], ids: str | None = None) -> pytest.MarkDecorator:
    """A parametrization whose values depend on `--matrix` (see the module docstring)."""
    missing = [value for value in quick if value not in full]
    if missing:
        raise ValueError(f"hil.matrix({name!r}): quick values {missing} are not in the full matrix")
    if not quick:
        raise ValueError(f"hil.matrix({name!r}): the quick set needs at least one value")
    return getattr(pytest.mark, MARKER)(name, quick=list(quick), full=list(full), ids=ids)


def parametrize(metafunc: pytest.Metafunc, size: str) -> None:
    """Apply every hil_matrix marker of a test function at the given size."""
    for marker in metafunc.definition.iter_markers(MARKER):
        name = marker.args[0]
        values = marker.kwargs[size]
        template = marker.kwargs.get("ids")
        metafunc.parametrize(name, values, ids=[template.format(v) if template else str(v) for v in values])


def pair_in_run(pair_matrix: str, size: str, *, named: bool) -> bool:
    """Whether a pair whose boards.yaml says `matrix: pair_matrix` runs at this --matrix size."""
    return named or SIZES.index(size) >= SIZES.index(pair_matrix)


def runs_on_pair(params: dict[str, Any], only: dict[str, list[Any]]) -> bool:
    """Whether a case with these parameters is one of the values the pair's `only` keeps."""
    return all(str(params[name]) in {str(value) for value in values} for name, values in only.items() if name in params)
