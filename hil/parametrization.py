"""Test parameters in two sizes: the quick set README command 1 gates on, and the seeds' full matrix.

    @hil.matrix("bs", quick=["64K", "1M"], full=["4K", "64K", "128K", "512K", "1M"], ids="bs={}")
    def test_msc_throughput(pair, perf, bs): ...

`pytest --matrix full` runs every value; the default (`quick`) runs the representative subset, a subset of the
full one so that a quick run's result keys always exist in a full run's baseline. A pair narrows this in
boards.yaml: `matrix: full`, `only`, `quick_only` (docs/boards-yaml.md).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

MARKER = "hil_matrix"
SIZES = ("quick", "full")


def matrix(name: str, *, quick: Sequence[Any], full: Sequence[Any], ids: str | None = None) -> pytest.MarkDecorator:
    """A parametrization whose values depend on `--matrix` (see the module docstring)."""
    if missing := [value for value in quick if value not in full]:
        raise ValueError(f"hil.matrix({name!r}): quick values {missing} are not in the full matrix")
    if not quick:
        raise ValueError(f"hil.matrix({name!r}): the quick set needs at least one value")
    return getattr(pytest.mark, MARKER)(name, quick=list(quick), full=list(full), ids=ids)


def parametrize(metafunc: pytest.Metafunc, size: str) -> None:
    """Apply every hil_matrix marker of a test function at the given size."""
    for marker in metafunc.definition.iter_markers(MARKER):
        values = marker.kwargs[size]
        template = marker.kwargs.get("ids")
        metafunc.parametrize(marker.args[0], values, ids=[template.format(v) if template else str(v) for v in values])


def pairs_in_run(boards: Mapping[str, Any], patterns: list[str], size: str) -> list[str]:
    """The pairs `patterns` (shell-style; none: all) select that run at this --matrix size (`matrix: full` in
    boards.yaml: only in full runs, unless a pattern names it); LookupError naming patterns no pair matches."""
    if unknown := [p for p in patterns if not fnmatch.filter(boards, p)]:
        raise LookupError(", ".join(unknown))
    return [
        name
        for name, board in boards.items()
        if (not patterns or any(fnmatch.fnmatch(name, p) for p in patterns))
        and (name in patterns or SIZES.index(size) >= SIZES.index(board.config.matrix))
    ]


def runs_on_pair(params: dict[str, Any], only: dict[str, list[Any]]) -> bool:
    """Whether a case with these parameters is one of the values the pair's `only` keeps."""
    return all(str(params[name]) in {str(value) for value in values} for name, values in only.items() if name in params)


def known_values(items: Sequence[pytest.Item]) -> dict[str, dict[str, set[str]]]:
    """Per pair, each parameter of its collected cases and every value it can take (the full matrix's too)."""
    known: dict[str, dict[str, set[str]]] = {}
    for item in items:
        params = dict(getattr(getattr(item, "callspec", None), "params", {}))
        pair = params.pop("board_pair", None)
        if pair is None:
            continue
        values = known.setdefault(str(pair), {})
        for name, value in params.items():
            values.setdefault(name, set()).add(str(value))
        for marker in item.iter_markers(MARKER):
            values.setdefault(marker.args[0], set()).update(str(v) for v in marker.kwargs["full"])
    return known


def unknown_selections(only: dict[str, list[Any]], known: dict[str, set[str]], *, whole_suite: bool) -> list[str]:
    """What a pair's `only`/`quick_only` names that none of its cases has: a typo deselects silently. A parameter
    no case has is reported only when the whole suite was collected and its cases have parameters at all; in a
    part of the suite, a list may name values of the cases left out (`direction: [read, in, tx]` serves MSC, HID
    and the network at once), so only a list none of whose values was collected is reported."""
    problems = []
    for name, values in only.items():
        if name not in known:
            if whole_suite and known:
                problems.append(f"{name!r} is no parameter of its cases (they have: {', '.join(sorted(known))})")
            continue
        unknown = [value for value in values if str(value) not in known[name]]
        if unknown and (whole_suite or len(unknown) == len(values)):
            problems += [
                f"{name}: {value!r} is no value of it (values: {', '.join(sorted(known[name]))})" for value in unknown
            ]
    return problems
