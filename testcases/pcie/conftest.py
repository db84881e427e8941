"""PCIe cases run on a root complex + endpoint pair of real boards. The virtual lab has no PCIe endpoint and
its kernel no DMATEST (docs/virtual-lab.md): DMA and interrupt cases skip there with that reason, whether
the inventory has no PCIe pair at all or a test is pointed at an emulated one. BAR load/store needs only a BAR
that is memory, which the virtual board has (QEMU's ivshmem-plain): a pair with an emulated PCIe link that
sets pcie.bar.* measures it (vlab-bar), its link not checked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hil.catalogue.pcie import PcieSettings
from hil.lab.pair import BoardPair
from hil.lab.pcie import link as pcie_link
from hil.lab.pcie import payload
from hil.plugin import INVENTORY

HERE = Path(__file__).resolve().parent
BAR_CASES = HERE / "test_pcie_bar.py"
NO_PCIE_IN_VLAB = "the virtual lab has no PCIe endpoint or DMATEST (docs/virtual-lab.md)"


def _real_pcie(board) -> bool:
    link = board.config.link
    return link.type == "pcie" and not link.emulated and not board.config.vlab


def _emulated_bar(board) -> bool:
    """An emulated PCI device whose BAR is memory, measured by the BAR cases only."""
    link = board.config.link
    return link.type == "pcie" and link.emulated and "pcie.bar.store" in board.config.metrics


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without a pair that can run them, the cases here are skipped with the reason, not pytest's 'empty
    parameter set'."""
    inventory = config.stash.get(INVENTORY, None)
    if inventory is None or any(_real_pcie(board) for board in inventory.boards.values()):
        return
    bar_runs = any(_emulated_bar(board) for board in inventory.boards.values())
    only_vlab = all(board.config.vlab for board in inventory.boards.values())
    reason = NO_PCIE_IN_VLAB if only_vlab else f"{inventory.path.name} has no PCIe root complex + endpoint pair"
    for item in items:
        if HERE in item.path.parents and not (bar_runs and item.path == BAR_CASES):
            item.add_marker(pytest.mark.skip(reason=reason), append=False)


@pytest.fixture
def pcie_pair(pair: BoardPair) -> Iterator[BoardPair]:
    """The pair, after its link's trained speed and width were checked against boards.yaml (an ERROR if lower)."""
    if not _real_pcie(pair.board):
        pytest.skip(NO_PCIE_IN_VLAB if pair.board.config.vlab or pair.link.emulated else f"{pair.name}: not PCIe")
    trained = pcie_link.require_declared(pair.role("rc"), pair.settings(PcieSettings).ep_bdf, pair.link)
    pair.record_link(trained.describe())
    _record_payload(pair)
    yield pair


@pytest.fixture
def bar_pair(pair: BoardPair) -> Iterator[BoardPair]:
    """A real pair as `pcie_pair` checks it, or an emulated device whose BAR is memory (its link is QEMU's)."""
    if _real_pcie(pair.board):
        trained = pcie_link.require_declared(pair.role("rc"), pair.settings(PcieSettings).ep_bdf, pair.link)
        pair.record_link(trained.describe())
    elif _emulated_bar(pair.board):
        pair.record_link("emulated: not checked")
    else:
        pytest.skip(NO_PCIE_IN_VLAB if pair.board.config.vlab or pair.link.emulated else f"{pair.name}: not PCIe")
    _record_payload(pair)
    yield pair


def _record_payload(pair: BoardPair) -> None:
    """The endpoint's MPS as the root complex reads it back; on a real link it must be the declared one."""
    bdf = pair.settings(PcieSettings).ep_bdf
    where = f"{pair.name} ({pair.role('rc').label}) {bdf}"
    pair.note(pcie_payload=payload.checked(pair.role("rc"), f"/sys/bus/pci/devices/{bdf}", pair.link, where))
