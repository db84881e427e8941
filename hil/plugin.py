"""hil's pytest plugin: board inventory -> lab control -> measurement -> verdict -> report.

Options, the `pair` and `perf` fixtures, and the parametrization of tests over the board pairs of
boards.yaml. Rendering and storing results is the report plugin's job (hil.report.pytest_report).
"""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hil.errors import HilError, InventoryError
from hil.inventory.loader import LoadedInventory, load_inventory
from hil.lab.pair import BoardPair, Environments, set_vlab_image_env
from hil.report import collect
from hil.report.outcome import MeasurementErrorOutcome, raise_for_verdict
from hil.verdict.baseline import apply_baseline, compare
from hil.verdict.errors import MeasurementError
from hil.verdict.result import MetricResult, metric_key
from hil.verdict.sampler import Progress, measure_metric

log = logging.getLogger("hil")
INVENTORY = pytest.StashKey[LoadedInventory | None]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hil", "hil board pairs and sampling")
    group.addoption(
        "--boards", default=None, metavar="PATH", help="board inventory (default: boards.yaml in the rootdir)"
    )
    group.addoption(
        "--board",
        action="append",
        default=[],
        metavar="NAME",
        help="run only on this pair (repeatable, shell-style patterns allowed)",
    )
    group.addoption(
        "--samples",
        type=int,
        default=None,
        metavar="N",
        help="take exactly N samples per metric instead of sampling adaptively",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "hil_metrics(*names): metrics a test measures; it runs on the pairs whose boards.yaml entry sets any of them",
    )
    samples = config.getoption("samples")
    if samples is not None and samples < 2:
        raise pytest.UsageError("--samples must be at least 2 (a spread needs two samples)")
    explicit = config.getoption("boards")
    path = Path(explicit) if explicit else config.rootpath / "boards.yaml"
    if not explicit and not path.is_file():
        config.stash[INVENTORY] = None
        return
    try:
        # Validated here, before collection: a bad inventory stops the run before any board is touched.
        config.stash[INVENTORY] = load_inventory(path)
    except InventoryError as exc:
        raise pytest.UsageError(f"invalid board inventory: {exc}") from None


def _inventory(config: pytest.Config) -> LoadedInventory:
    inventory = config.stash.get(INVENTORY, None)
    if inventory is None:
        raise pytest.UsageError("no board inventory: create boards.yaml in the rootdir or pass --boards PATH")
    return inventory


def _wanted_metrics(definition: Any) -> set[str]:
    names: set[str] = set()
    for marker in definition.iter_markers("hil_metrics"):
        names.update(marker.args)
    return names


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "board_pair" not in metafunc.fixturenames:
        return
    inventory = _inventory(metafunc.config)
    patterns = metafunc.config.getoption("board")
    unknown = [p for p in patterns if not fnmatch.filter(inventory.boards, p)]
    if unknown:
        raise pytest.UsageError(
            f"--board {', '.join(unknown)}: no such pair in {inventory.path} (pairs: {', '.join(inventory.boards)})"
        )
    wanted = _wanted_metrics(metafunc.definition)
    names = [
        name
        for name, board in inventory.boards.items()
        if (not patterns or any(fnmatch.fnmatch(name, p) for p in patterns))
        and (not wanted or wanted & set(board.config.metrics))
    ]
    # Session scope: the board boots once and all tests of a pair run together.
    metafunc.parametrize("board_pair", names, indirect=True, scope="session", ids=names)


@pytest.fixture(scope="session")
def hil_inventory(pytestconfig: pytest.Config) -> LoadedInventory:
    return _inventory(pytestconfig)


@pytest.fixture(scope="session")
def hil_environments(pytestconfig: pytest.Config) -> Iterator[Environments]:
    environments = Environments(coordinator=pytestconfig.getoption("lg_coordinator", None))
    yield environments
    environments.cleanup()  # powers the boards off


_PAIRS = pytest.StashKey[dict[str, BoardPair]]()


@pytest.fixture(scope="session")
def board_pair(
    request: pytest.FixtureRequest, hil_inventory: LoadedInventory, hil_environments: Environments
) -> BoardPair:
    pairs = request.config.stash.setdefault(_PAIRS, {})
    name = request.param
    if name not in pairs:
        board = hil_inventory.boards[name]
        if board.config.vlab:
            from hil.vlab.image import ensure_image  # only pairs on the virtual lab need its image

            set_vlab_image_env(ensure_image(log=log.info).directory)
        pairs[name] = BoardPair.open(board, hil_environments)
    return pairs[name]


@pytest.fixture
def pair(board_pair: BoardPair) -> BoardPair:
    """The board pair under test, answering and with its link configured (power-cycled if it was hung)."""
    board_pair.prepare()
    return board_pair


class Perf:
    """What a test case calls to measure a metric: `perf.check("usb.msc.read", sample=..., bs="1M")`."""

    def __init__(self, request: pytest.FixtureRequest, pair: BoardPair, inventory: LoadedInventory) -> None:
        self.request = request
        self.pair = pair
        self.inventory = inventory
        self.config = request.config

    def check(
        self,
        metric: str,
        *,
        sample: Callable[[], Any],
        transfer: str | None = None,
        facts: dict[str, Any] | None = None,
        **params: Any,
    ) -> MetricResult:
        """Sample until the verdict is settled, record the result, then pass, warn, fail or error."""
        board = self.pair.board
        if metric not in board.config.metrics:
            pytest.skip(f"{board.name}: boards.yaml sets no expectation for {metric}")
        spec = board.spec_for(
            self.inventory.inventory,
            metric,
            params,
            ceiling=self.pair.ceiling(transfer) if transfer else None,
            fixed_samples=self.config.getoption("samples"),
        )
        # Facts first: after sampling, the board may be the thing that failed.
        known = {**self._facts(), **(facts or {})}
        result = measure_metric(
            spec, _lab_errors_as_measurement_errors(sample), board=board.name, on_sample=self._progress
        )
        result.facts.update(known)
        if board.config.metrics[metric].source:
            result.facts["band_source"] = board.config.metrics[metric].source
        result = self._compare_with_baseline(result, spec.min_effect)
        collect.attach(self.request.node, result)
        raise_for_verdict(result)
        return result

    def _facts(self) -> dict[str, Any]:
        if "kernel" not in self.pair.facts:
            kernels = self.pair.kernel_facts()
            self.pair.facts["kernel"] = ", ".join(sorted(set(kernels.values())))
        return {**self.pair.facts, **self.pair.boot_facts()}

    def _compare_with_baseline(self, result: MetricResult, min_effect: float) -> MetricResult:
        store = self.request.getfixturevalue("hil_baselines")
        if store is None:
            return result
        baseline = store.load(result.board)
        key = metric_key(result.metric, result.params)
        samples = baseline.samples_for(key) if baseline else None
        if not samples or len(result.samples) < 2:
            result.facts["baseline"] = f"none stored for {key}"
            return result
        comparison = compare(
            result.values,
            samples,
            direction=result.direction,
            min_effect=min_effect,
            baseline_run=baseline.run_for(key) or baseline.run_id,
        )
        return apply_baseline(result, comparison)

    def _progress(self, progress: Progress, sample: Any) -> None:
        stats = progress.stats
        spread = f" median {stats.median:.4g}, CV {stats.cv * 100:.1f}%" if stats else ""
        line = (
            f"{self.pair.name} {progress.metric} {progress.phase} {progress.index + 1}: "
            f"{sample.value:.4g}{spread} ({progress.elapsed_s:.0f} s)"
        )
        log.info(line)
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and self.config.getoption("verbose") > 0:
            reporter.write_line(f"    {line}")


def _lab_errors_as_measurement_errors(sample: Callable[[], Any]) -> Callable[[], Any]:
    """A board that hangs or a command that fails mid-sampling ends the metric as ERROR, and the samples
    measured before it stay in the result (and on disk) instead of vanishing with an exception."""

    def guarded() -> Any:
        try:
            return sample()
        except HilError as exc:
            raise MeasurementError(f"{type(exc).__name__}: {exc}", raw_output=getattr(exc, "output", "")) from exc

    return guarded


@pytest.fixture
def perf(request: pytest.FixtureRequest, pair: BoardPair, hil_inventory: LoadedInventory) -> Perf:
    return Perf(request, pair, hil_inventory)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A lab that cannot measure (no enumeration, wrong link speed, hung board) is an ERROR, not a FAIL."""
    try:
        return (yield)
    except (HilError, MeasurementError) as exc:  # a BoardTimeout already marked its board (Role.run)
        raise MeasurementErrorOutcome(f"{type(exc).__name__}: {exc}") from exc
    except pytest.fail.Exception as exc:
        # pytest-timeout's signal method fails the test from inside whatever command was running:
        # the board may be mid-command, so the next test power-cycles it.
        if "Timeout" in str(exc):
            _mark_pair_suspect(item, "pytest-timeout expired")
        raise


def _mark_pair_suspect(item: pytest.Item, reason: str) -> None:
    pair = getattr(item, "funcargs", {}).get("board_pair")
    if isinstance(pair, BoardPair):
        for role in pair.roles.values():
            role.mark_suspect(reason)
