"""The example inventories in examples/ stay valid against the schema and the catalogue."""

from __future__ import annotations

from pathlib import Path

from hil.inventory.loader import load_inventory

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_rockchip_nvme_examples_load_with_their_seed_bands_and_links():
    loaded = load_inventory(EXAMPLES / "boards-rockchip.yaml")
    links = {name: (b.config.link.gen, b.config.link.lanes) for name, b in loaded.boards.items()}
    assert links == {
        "rk3588-evb1-nvme-gen3x4": (3, 4),
        "rk3568-evb1-nvme-gen3x2": (3, 2),
        "rk3588s-evb1-nvme-gen2x1": (2, 1),
    }
    rk3588 = loaded.boards["rk3588-evb1-nvme-gen3x4"].config
    assert not rk3588.link.emulated and set(rk3588.roles) == {"rc"}
    assert rk3588.metrics["nvme.seq1m_q32t1.read"].min == 2897  # 90% of seed 002's 3219.2 MB/s
    assert "3219.2 MB/s" in rk3588.metrics["nvme.seq1m_q32t1.read"].source
