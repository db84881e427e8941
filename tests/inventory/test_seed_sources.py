"""Every seed table and section a band's `source` cites exists in that guide (SEEDS below).

A source names its guide ("seed 002") and then what in it ("§8.2.4", "table 3-1", "tables 3-3 to 3-6"); a
reference belongs to the last guide named before it in the same string.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hil.inventory.loader import load_inventory

REPO = Path(__file__).resolve().parents[2]
INVENTORIES = [REPO / "boards.yaml", *sorted((REPO / "examples").glob("boards-*.yaml"))]
_REFERENCE = re.compile(
    r"seed (?P<seed>[0-9]{3})|tables? (?P<table>[0-9]+-[0-9]+)(?: to (?P<last>[0-9]+-[0-9]+))?"
    r"|§(?P<section>[0-9]+(?:\.[0-9]+)*)"
)

# The tables and numbered sections of the five guides, as they number them. Transcribed on 2026-11-26:
# seed 000's sections are its "##"/"###" headings numbered in order (1 USB 理论传输速率分析 ... 3.5 USB Gadget
# HID 传输速率分析); seed 002 numbers its own; seeds 001, 003 and 004 have neither tables nor numbered sections.
SEEDS: dict[str, dict[str, frozenset[str]]] = {
    "000": {  # Rockchip USB Performance Analysis Guide
        "tables": frozenset({"1-1", "1-2", "2-1", "3-1", "3-2", "3-3", "3-4", "3-5", "3-6"}),
        "sections": frozenset(
            {"1", "1.1", "1.2", "1.3", "1.4", "2", "2.1", "2.2", "2.3", "3", "3.1", "3.2", "3.3", "3.4", "3.5"}
        ),
    },
    "001": {"tables": frozenset(), "sections": frozenset()},  # OMAP USB testing wiki page
    "002": {  # Rockchip Developer Guide PCIe Performance
        "tables": frozenset(),
        "sections": frozenset(
            {str(n) for n in range(1, 9)}
            | {"1.1", "1.2", "2.1", "2.2", "2.3", "3.1", "3.2", "3.3", "3.4", "4.1", "4.2", "4.2.1", "4.2.2"}
            | {"4.3", "4.3.1", "4.3.2", "4.3.3", "5.1", "5.2", "5.3", "5.4", "5.4.1", "5.4.2", "6.1", "6.2", "6.3"}
            | {"6.4", "7.1", "7.2", "7.3", "7.4", "8.1", "8.1.1", "8.2"}
            | {f"8.2.{n}" for n in range(1, 8)}
        ),
    },
    "003": {"tables": frozenset(), "sections": frozenset()},  # USB resume timing article
    "004": {"tables": frozenset(), "sections": frozenset()},  # Android modem loopback iperf notes
}


def references(source: str) -> list[tuple[str, str, str]]:
    """(seed, kind, name) for each table or section the source cites; a citation before any seed is ('', ...)."""
    found, seed = [], ""
    for m in _REFERENCE.finditer(source):
        if m["seed"]:
            seed = m["seed"]
            found.append((seed, "seed", seed))
        elif m["table"]:
            found += [(seed, "tables", name) for name in (m["table"], m["last"]) if name]
        else:
            found.append((seed, "sections", m["section"]))
    return found


def _sources(path: Path) -> list[tuple[str, str]]:
    rehearsal = path.name == "boards-rehearsal.yaml"
    loaded = load_inventory(path, lg_env=path.parent / "rehearsal-env.yaml" if rehearsal else None)
    return [
        (f"{name}/{metric}", config.source)
        for name, board in loaded.boards.items()
        for metric, config in board.config.metrics.items()
        if config.source
    ]


@pytest.mark.parametrize("path", INVENTORIES, ids=lambda p: p.name)
def test_every_seed_reference_in_a_source_exists(path, monkeypatch):
    monkeypatch.setenv("LG_HIL_BENCH", "/nonexistent")  # the rehearsal env's !template values
    cited = 0
    for where, source in _sources(path):
        for seed, kind, name in references(source):
            assert seed, f"{path.name}: {where}: '{name}' cites no seed before it: {source!r}"
            assert seed in SEEDS, f"{path.name}: {where}: there is no seed {seed}: {source!r}"
            if kind != "seed":
                assert name in SEEDS[seed][kind], f"{path.name}: {where}: seed {seed} has no {kind[:-1]} {name}"
                cited += 1
    if path.name in ("boards-rockchip.yaml", "boards-pcie.yaml", "boards-android.yaml", "boards-uvc.yaml"):
        assert cited, f"{path.name} cites no seed table or section"


def test_references_belong_to_the_last_seed_named():
    refs = references("seed 000 table 3-1 and tables 3-3 to 3-6; seed 002 §8.2.4, §6.3")
    assert refs == [
        ("000", "seed", "000"),
        ("000", "tables", "3-1"),
        ("000", "tables", "3-3"),
        ("000", "tables", "3-6"),
        ("002", "seed", "002"),
        ("002", "sections", "8.2.4"),
        ("002", "sections", "6.3"),
    ]


def test_a_table_the_guide_does_not_have_is_caught():
    (seed, kind, name), *_ = [ref for ref in references("seed 000 table 3-7") if ref[1] != "seed"]
    assert name not in SEEDS[seed][kind]
