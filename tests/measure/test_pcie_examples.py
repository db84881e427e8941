"""The example PCIe inventory (examples/boards-pcie.yaml + lab-pcie.yaml) loads with hil's own loader, and what
it gives the PCIe cases: the seed's figures as bands, ceilings from the declared link. The repository's
boards.yaml stays virtual-lab only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hil.inventory.loader import load_inventory
from hil.verdict.ceilings import pcie_ceiling
from hil.verdict.spec import Direction

REPO = Path(__file__).resolve().parents[2]
DMA_PAIRS = {"rk3588-evb1-evb4": (3, 4), "rk3588-evb1-evb4-gen2x1": (2, 1), "rk3568-evb1-iotest": (3, 2)}
# Seed 002 §5.3's other rows: BAR only, each root complex against the RK3588-EVB4 endpoint.
BAR_PAIRS = {
    "rk3568-evb1-gen3x2-rk3588-ep": (3, 2),
    "rk3568-evb1-gen2x1-rk3588-ep": (2, 1),
    "rk3528-evb-rk3588-ep": (2, 1),
    "rk3562-evb-rk3588-ep": (2, 1),
    "rk3572-evb-rk3588-ep": (2, 1),
}
PAIRS = DMA_PAIRS | BAR_PAIRS


@pytest.fixture(scope="module")
def loaded():
    return load_inventory(REPO / "examples/boards-pcie.yaml")


def test_the_example_inventory_validates_with_its_env(loaded):
    assert set(loaded.boards) == set(PAIRS)
    for name, (gen, lanes) in PAIRS.items():
        board = loaded.boards[name]
        assert board.env_path == REPO / "examples/lab-pcie.yaml"
        assert (board.config.link.type, board.config.link.gen, board.config.link.lanes) == ("pcie", gen, lanes)
        assert set(board.config.roles) == {"rc", "ep"}
        assert not board.config.vlab and not board.config.link.emulated


def test_the_repository_inventory_has_no_real_pcie_pair():
    """CI runs boards.yaml on the virtual lab: its PCIe pairs are emulated (QEMU's NVMe, ivshmem-plain's BAR)."""
    boards = load_inventory(REPO / "boards.yaml").boards.values()
    assert all(board.config.vlab and board.config.link.emulated for board in boards if board.config.link.type == "pcie")


@pytest.mark.parametrize(
    ("pair", "metric", "size", "low"),
    [
        ("rk3588-evb1-evb4", "pcie.dma.write", "4M", 2606.1),  # seed 002 §4.3.2: 3066.1 MB/s
        ("rk3568-evb1-iotest", "pcie.dma.read", "64B", 5.1),  # seed 002 §4.3.1: 6.0 MB/s
        ("rk3588-evb1-evb4-gen2x1", "pcie.dma.read", "1M", 356.3),  # seed 002 §4.3.3: 419.2 MB/s
    ],
)
def test_dma_bands_are_the_seeds_figures_under_the_link_ceiling(loaded, pair, metric, size, low):
    board = loaded.boards[pair]
    spec = board.spec_for(loaded.inventory, metric, {"size": size})
    gen, lanes = DMA_PAIRS[pair]
    assert spec.band.low == low and spec.band.high is None
    assert spec.ceiling.value == pytest.approx(pcie_ceiling(gen, lanes, payload=256).value)
    assert spec.ceiling.enforced
    assert spec.band.low / 0.85 < spec.ceiling.value  # the seed's figure itself fits under the ceiling


def test_latencies_fail_above_their_band(loaded):
    spec = loaded.boards["rk3588-evb1-evb4"].spec_for(loaded.inventory, "pcie.irq.msi", {})
    assert (spec.direction, spec.unit, spec.band.high, spec.ceiling) == (Direction.LOWER, "µs", 3, None)


def test_bar_figures_measured_against_another_endpoint_are_informative(loaded):
    spec = loaded.boards["rk3568-evb1-iotest"].spec_for(loaded.inventory, "pcie.bar.store", {})
    assert spec.band is None


@pytest.mark.parametrize(
    ("pair", "store", "load"),
    [("rk3568-evb1-gen2x1-rk3588-ep", 36.0, 2.4), ("rk3528-evb-rk3588-ep", 67.7, 2.3)],
)
def test_every_bar_row_of_the_seed_is_a_band(loaded, pair, store, load):
    board = loaded.boards[pair]
    for metric, figure in (("pcie.bar.store", store), ("pcie.bar.load", load)):
        spec = board.spec_for(loaded.inventory, metric, {})
        assert spec.band.low == round(0.85 * figure, 1) and f"{figure} MB/s" in board.config.metrics[metric].source


def _pytest(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "testcases/pcie", "-p", "no:cacheprovider", "-q", "-rs"]
    command += ["--hil-reports", str(tmp_path), *args]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=240, check=False)


def test_the_full_matrix_runs_every_size_both_ways_on_every_example_pair(tmp_path):
    run = _pytest(tmp_path, "--boards", "examples/boards-pcie.yaml", "--matrix", "full", "--collect-only")
    dma = [line for line in run.stdout.splitlines() if "test_pcie_dma_throughput[" in line]
    assert len(dma) == 6 * 2 * len(DMA_PAIRS), run.stdout + run.stderr
    for size in ("64B", "256B", "4K", "64K", "1M", "4M"):
        assert f"test_pcie_dma_throughput[size={size}-rk3568-evb1-iotest-read]" in run.stdout


def test_on_the_virtual_lab_dma_and_interrupt_cases_skip_with_the_reason_and_the_bar_case_runs(tmp_path):
    run = _pytest(tmp_path, "--deselect", "testcases/pcie/test_pcie_bar.py")
    assert run.returncode == 0, run.stdout + run.stderr
    skipped = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 2  # one summary line per file
    reason = "the virtual lab has no PCIe endpoint or DMATEST (docs/virtual-lab.md)"
    assert all(line.endswith(reason) for line in skipped)
    # The BAR case is collected for the pair whose BAR is QEMU's ivshmem-plain memory (tests/vlab runs it).
    collected = _pytest(tmp_path, "--collect-only", "testcases/pcie/test_pcie_bar.py")
    for mapping in ("device", "wc"):  # sysfs resource2 and resource2_wc
        assert f"test_pcie_bar_throughput[mapping={mapping}-vlab-bar]" in collected.stdout, collected.stdout
