"""hil's pytest plugin: options, the `pair` and `perf` fixtures, the parametrization of tests over the board pairs
of boards.yaml and the quick or full parameter matrix, and one worker per board under pytest-xdist. Measuring is
hil.perf's job; rendering and storing results the report plugin's (hil.report.pytest_report)."""

from __future__ import annotations

import hashlib
import logging
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hil_testcases
import pytest
from labgrid.pytestplugin.hooks import LABGRID_ENV_KEY

from hil import confirmation, diagnose, rootdir, signals
from hil import parametrization as matrix
from hil.build.manifest import Build, BuildError, load_build
from hil.catalogue import UnknownName
from hil.db.baselines import Baselines
from hil.errors import HilError, InventoryError, Unavailable
from hil.inventory import yamlfile
from hil.inventory.loader import LoadedInventory, load_inventory
from hil.inventory.schema import parse_selector
from hil.lab.board import deploy
from hil.lab.board.steplog import keep_step_log
from hil.lab.environments import Environments
from hil.lab.pair import BoardPair
from hil.perf import Perf, PerfOptions
from hil.report.outcome import MeasurementErrorOutcome
from hil.report.pytest_report import RUN_IDENTITY
from hil.scheduling import board_groups
from hil.verdict.errors import MeasurementError
from hil.verdict.result import CLOCK_PARAM

log = logging.getLogger("hil")
INVENTORY = pytest.StashKey[LoadedInventory | None]()
BUILD = pytest.StashKey[Build | None]()
METRICS_MARKER = "hil_metrics"
UNAVAILABLE_MARKER = "hil_unavailable"
TOOLS_MARKER = "hil_tools"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hil", "hil board pairs and sampling")
    group.addoption("--boards", metavar="PATH", help="board inventory (default: boards.yaml in the rootdir)")
    group.addoption(
        "--board",
        action="append",
        default=[],
        metavar="NAME",
        help="run only on this pair (repeatable, shell-style patterns allowed)",
    )
    group.addoption(
        "--samples", type=int, metavar="N", help="take exactly N samples per metric instead of sampling adaptively"
    )
    group.addoption(
        "--build",
        metavar="MANIFEST",
        help="the build under test (a build manifest, hil.build): put on every board before its first power-on, "
        "checked after every boot, named in every result",
    )
    group.addoption(
        "--matrix",
        choices=matrix.SIZES,
        default="quick",
        help="parameter matrix: 'quick' (a representative subset, the default) or 'full' (every value the seeds give)",
    )
    diagnose.add_options(group)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    rootdir.repair(early_config, parser, args)  # `--boards PATH` must not move the rootdir (hil.rootdir)


def pytest_configure(config: pytest.Config) -> None:
    for marker in (
        f"{METRICS_MARKER}(*names): catalogue metrics a test measures; it runs on the pairs whose boards.yaml "
        "entry sets any of them",
        f"{TOOLS_MARKER}(**roles): programs a test runs on each role, e.g. hil_tools(rc=['fio']); a board that "
        "lacks any of them is one ERROR naming them all, before any sample (hil's own programs are deployed)",
        f"{matrix.MARKER}(name, quick, full, ids): a parameter with a quick and a full set of values",
        f"{UNAVAILABLE_MARKER}(why): why(board, params) says why a case cannot run on a pair (a reason) or None; "
        "such cases are skipped with that reason at collection, before any board is touched (a function is "
        f"the marker's only argument: write pytest.mark.{UNAVAILABLE_MARKER}.with_args(why))",
    ):
        config.addinivalue_line("markers", marker)
    samples = config.getoption("samples")
    if samples is not None and samples < 2:
        raise pytest.UsageError("--samples must be at least 2 (a spread needs two samples)")
    _schedule_per_board(config)
    config.stash[RUN_IDENTITY] = {}
    _load_build(config)
    signals.install()  # SIGTERM/SIGHUP end the run like Ctrl-C: reports written, boards powered off
    explicit = config.getoption("boards")
    path = Path(explicit) if explicit else config.rootpath / "boards.yaml"
    if not explicit and not path.is_file():
        config.stash[INVENTORY] = None
        return
    try:
        # Validated here, before collection: a bad inventory stops the run before any board is touched.
        config.stash[INVENTORY] = load_inventory(path, lg_env=_lg_env(config))
    except InventoryError as exc:
        raise pytest.UsageError(f"invalid board inventory: {exc}") from None
    shown = path.resolve().relative_to(config.rootpath) if path.resolve().is_relative_to(config.rootpath) else path
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    config.stash[RUN_IDENTITY]["inventory"] = {"path": str(shown), "sha256": sha256}


def pytest_sessionstart(session: pytest.Session) -> None:
    keep_step_log()  # after labgrid's plugin started its StepLogger (its pytest_configure runs last)


def _load_build(config: pytest.Config) -> None:
    """--build: the manifest checked and its images hashed before anything else happens (a usage error)."""
    config.stash[BUILD] = None
    manifest = config.getoption("build")
    if manifest is None:
        return
    try:
        build = load_build(manifest)
    except BuildError as exc:
        raise pytest.UsageError(f"invalid --build: {exc}") from None
    config.stash[BUILD] = build
    config.stash[RUN_IDENTITY]["build"] = build.identity()


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """The --lg-env/LG_ENV file checked before labgrid's own plugin loads it (its errors are tracebacks)."""
    path = _lg_env(config)
    if path is None:
        return
    from labgrid.config import Config  # labgrid's reading of it, templates resolved

    try:
        yamlfile.check_file(path)
        Config(str(path))
    except yamlfile.YamlProblem as exc:
        raise pytest.UsageError(f"--lg-env/LG_ENV {path}{f' line {exc.line}' if exc.line else ''}: {exc}") from None
    except Exception as exc:
        raise pytest.UsageError(f"--lg-env/LG_ENV {path}: {exc}") from None


def _lg_env(config: pytest.Config) -> Path | None:
    """labgrid's own way to name the environment: --lg-env (its pytest plugin's option), else LG_ENV."""
    value = config.getoption("lg_env", default=None) or os.environ.get("LG_ENV")
    if not value:
        return None
    path = Path(value)
    if not path.is_file():
        raise pytest.UsageError(f"--lg-env/LG_ENV: labgrid environment {value} does not exist")
    return path


def _schedule_per_board(config: pytest.Config) -> None:
    """Every test of a board on one worker, whatever `-n` chose (hil.scheduling): `--dist loadgroup`, not the `load`
    that would send two workers to one board; workers re-parse the command line, so each is told to put every
    test's `xdist_group` into its node id, which `loadgroup` schedules by."""
    if hasattr(config, "workerinput"):
        config.option.loadgroup = True
        # The controller stops a worker with SIGINT (execnet) and kills it 5 s later; a worker that inherited
        # SIGINT ignored (a background job of a non-interactive shell) would die holding its places.
        if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        return
    if not config.getoption("numprocesses", None):
        return
    if config.getoption("dist", "no") == "each":
        raise pytest.UsageError("--dist each would send every worker to every board: hil schedules per board")
    config.option.dist = "loadgroup"


def _inventory(config: pytest.Config) -> LoadedInventory:
    inventory = config.stash.get(INVENTORY, None)
    if inventory is None:
        raise pytest.UsageError("no board inventory: create boards.yaml in the rootdir or pass --boards PATH")
    return inventory


def _wanted_metrics(definition: Any, inventory: LoadedInventory) -> set[str]:
    names = {name for marker in definition.iter_markers(METRICS_MARKER) for name in marker.args}
    for name in names:
        try:
            inventory.catalogue.metric(name)
        except UnknownName as exc:
            raise pytest.UsageError(f"{definition.nodeid}: @pytest.mark.{METRICS_MARKER}: {exc}") from None
    return names


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    size = metafunc.config.getoption("matrix")
    matrix.parametrize(metafunc, size)
    if "board_pair" not in metafunc.fixturenames:
        return
    inventory = _inventory(metafunc.config)
    try:
        selected = matrix.pairs_in_run(inventory.boards, metafunc.config.getoption("board"), size)
    except LookupError as exc:
        raise pytest.UsageError(
            f"--board {exc.args[0]}: no such pair in {inventory.path} (pairs: {', '.join(inventory.boards)})"
        ) from None
    wanted = _wanted_metrics(metafunc.definition, inventory)
    names = [name for name in selected if not wanted or wanted & set(inventory.boards[name].config.metrics)]
    if not names:  # pytest's empty parameter set would skip it as "NOTSET", saying nothing of why
        why = f"no pair of {inventory.path.name} in this run measures {', '.join(sorted(wanted)) or 'it'}"
        held = [n for n, b in inventory.boards.items() if wanted & set(b.config.metrics) and b.config.matrix == "full"]
        why += f" ({', '.join(held)}: the full matrix only, --matrix full)" if held and size == "quick" else ""
        names = [pytest.param(None, marks=pytest.mark.skip(reason=why), id="no-pair")]
    # Session scope: the board boots once and all tests of a pair run together.
    metafunc.parametrize("board_pair", names, indirect=True, scope="session")


# A wrapper: the groups are set before any other implementation runs (pytest-xdist's worker appends them to the node
# ids), the order after all of them (pytest's own grouping by pair: board_pair is session-scoped).
@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Iterator[None]:
    inventory = config.stash.get(INVENTORY, None)
    if inventory is None:
        return (yield)
    _select_cases(config, items, inventory)
    yield
    # The virtual-clock pairs' tests, each speed together, before those of virtual pairs on the real clock: the
    # virtual board reboots to change its clock (hil.lab.board.provision.use_clock), once per clock in a run instead
    # of at every change of family (5 times in the quick suite).
    items.sort(key=lambda item: _clock_order(inventory, item))


def _clock_order(inventory: LoadedInventory, item: pytest.Item) -> tuple[bool, int]:
    board = inventory.boards.get(getattr(getattr(item, "callspec", None), "params", {}).get("board_pair"))
    if board is None or not board.config.vlab:
        return False, 0
    return board.config.clock == "real", board.config.virtual_mips


def _select_cases(config: pytest.Config, items: list[pytest.Item], inventory: LoadedInventory) -> None:
    """Deselect the cases a pair's `only` (and in quick runs its `quick_only`) in boards.yaml leaves out
    (hil.parametrization); skip those a `hil_unavailable` marker says cannot run on their pair (the lab layer says
    why); put the others in their board's pytest-xdist group (hil.scheduling)."""
    quick = config.getoption("matrix") == "quick"
    _check_selections(config, items, inventory)
    groups = board_groups(inventory.boards.values())
    kept, dropped = [], []
    for item in items:
        params = dict(getattr(getattr(item, "callspec", None), "params", {}))
        name = params.pop("board_pair", None)
        board = inventory.boards.get(name)
        if board is not None and not (
            matrix.runs_on_pair(params, board.config.only)
            and (not quick or matrix.runs_on_pair(params, board.config.quick_only))
        ):
            dropped.append(item)
            continue
        kept.append(item)
        if name in groups:
            item.add_marker(pytest.mark.xdist_group(name=f"board:{groups[name]}"))
        why = (marker.args[0](board, params) for marker in item.iter_markers(UNAVAILABLE_MARKER) if board)
        if reason := next(filter(None, why), None):
            item.add_marker(pytest.mark.skip(reason=reason))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _check_selections(config: pytest.Config, items: list[pytest.Item], inventory: LoadedInventory) -> None:
    """A pair's `only`/`quick_only`, or a band's `params` selector, naming a parameter or value none of its cases
    has is an error: a typo (`bs=4k`, `direcion=tx`) would deselect, or leave a band unused, without a word."""
    # Whole suite: only directories given (no file, no ::node), so each pair's every test module is collected.
    whole_suite = all(Path(arg.split("::")[0]).is_dir() and "::" not in arg for arg in config.args)
    known = matrix.known_values(items)  # a pair none of whose cases were collected: nothing to check against
    problems = []
    for name, board in inventory.boards.items():
        for key in ("only", "quick_only") if name in known else ():
            for problem in matrix.unknown_selections(getattr(board.config, key), known[name], whole_suite=whole_suite):
                problems.append(f"{inventory.where('pairs', name, key)}: {problem}")
    # A band's selector only against the whole stock suite's cases: a part of it, or a lab's own cases, may lack a
    # parameter or a value the stock cases measure the metric at.
    stock = matrix.known_values(_whole_stock_suite(items))
    for name, board in inventory.boards.items():
        for metric, settings in board.config.metrics.items() if name in stock else ():
            for selector in settings.params:
                # the clock is added to a result's key when measuring: no case parameter
                chosen = {k: [v] for k, v in parse_selector(selector).items() if k != CLOCK_PARAM}
                for problem in matrix.unknown_selections(chosen, stock[name], whole_suite=True):
                    problems.append(
                        f"{inventory.where('pairs', name, 'metrics', metric, 'params', selector)}: {problem}"
                    )
    if problems:
        raise pytest.UsageError(f"invalid board inventory: {inventory.path}: " + "; ".join(problems))


def _whole_stock_suite(items: list[pytest.Item]) -> list[pytest.Item]:
    """The cases of hil's stock suite (hil_testcases: testcases/ in hil's repository) when the run collected every
    one of its modules; none otherwise."""
    root = Path(hil_testcases.__file__).resolve().parent
    modules = {path.resolve() for path in root.rglob("test_*.py")}
    paths = {item: Path(item.path).resolve() for item in items}
    stock = [item for item, path in paths.items() if path in modules]
    return stock if {paths[item] for item in stock} == modules else []


_LOST_GROUPS = pytest.StashKey[str]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """On a worker: notice when pytest-xdist did not carry the board groups into the node ids (pytest 9.2 ignores
    the suffix pytest-xdist 3.8 writes, pytest-xdist#1386), so every test errors before its board is set up."""
    if not hasattr(session.config, "workerinput"):
        return
    lost = [item.nodeid for item in session.items if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
    if lost:
        session.config.stash[_LOST_GROUPS] = (
            f"pytest-xdist did not apply the per-board groups ({len(lost)} tests, e.g. {lost[0]}): two workers "
            "could drive one board. This pytest/pytest-xdist pair is known to lose them (pytest-xdist#1386); "
            "install the versions pyproject.toml pins, or run without -n"
        )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    lost = item.config.stash.get(_LOST_GROUPS, None)
    if lost is not None:
        pytest.fail(lost, pytrace=False)


@pytest.fixture(scope="session")
def hil_inventory(pytestconfig: pytest.Config) -> LoadedInventory:
    return _inventory(pytestconfig)


@pytest.fixture(scope="session")
def hil_environments(pytestconfig: pytest.Config) -> Iterator[Environments]:
    inventory = pytestconfig.stash.get(INVENTORY, None)
    lab = inventory.inventory.coordinator if inventory is not None else None
    # A pair on places asks this coordinator: the command line, then LG_COORDINATOR, then boards.yaml.
    address = pytestconfig.getoption("lg_coordinator", None) or os.environ.get("LG_COORDINATOR")
    environments = Environments(
        coordinator=address or (lab.address if lab else None),
        wait_s=lab.wait_s if lab else 600.0,
        build=pytestconfig.stash.get(BUILD, None),
    )
    # --lg-env: the Environment labgrid's own plugin made of it is the one every pair uses (one object per
    # board: two would drive the same console and power switch).
    lg_env = _lg_env(pytestconfig)
    labgrid_env = pytestconfig.stash.get(LABGRID_ENV_KEY, None)
    if lg_env is not None and labgrid_env is not None:
        environments.adopt(lg_env, labgrid_env)
    _LIVE.append(environments)
    try:
        yield environments
    finally:
        _LIVE.remove(environments)
        environments.cleanup()  # powers the boards off, releases any place still held


_LIVE: list[Environments] = []  # this process's session environments, for pytest_keyboard_interrupt


@pytest.hookimpl(tryfirst=True)
def pytest_keyboard_interrupt(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """Ctrl-C or SIGTERM: give the places back before the session's teardown, which may come too late on a
    pytest-xdist worker (interrupted only once its controller shuts it down, and killed 5 s later)."""
    for environments in _LIVE:
        environments.release_all()


_PAIRS = pytest.StashKey[dict[str, BoardPair]]()


@pytest.fixture(scope="session")
def board_pair(
    request: pytest.FixtureRequest, hil_inventory: LoadedInventory, hil_environments: Environments
) -> Iterator[BoardPair]:
    pairs = request.config.stash.setdefault(_PAIRS, {})
    name = request.param
    if name not in pairs:
        board = hil_inventory.boards[name]
        if board.config.vlab:
            from hil.vlab import set_vlab_image_env
            from hil.vlab.image import ensure_image  # only pairs on the virtual lab need its image

            set_vlab_image_env(ensure_image(log=log.info).directory)
        pairs[name] = hil_environments.open(board)
    yield pairs[name]
    # A pair's tests run together (session-scoped parameter): a pair on places gives them back now, on
    # any way out (a failure, Ctrl-C, SIGTERM), for the next run waiting for them.
    if pairs[name].lease is not None:
        hil_environments.give_back(pairs.pop(name).lease)


@pytest.fixture
def pair(request: pytest.FixtureRequest, board_pair: BoardPair) -> Iterator[BoardPair]:
    """The board pair under test, answering and with its link configured (power-cycled if it was hung)."""
    catalogue = request.config.stash[INVENTORY].catalogue
    metrics = _wanted_metrics(request.node, request.config.stash[INVENTORY])
    board_pair.prepare(suspends=any(catalogue.metric(name).suspends_board for name in metrics))
    deploy.require_tools(board_pair.name, board_pair.roles, _tools_needed(request.node), board_pair.facts)
    yield board_pair
    board_pair.stop_backgrounds()  # whatever a test left running (an interrupted `with` block)


def _tools_needed(item: pytest.Item) -> dict[str, list[str]]:
    needed: dict[str, list[str]] = {}
    for marker in item.iter_markers(TOOLS_MARKER):
        for role, tools in marker.kwargs.items():
            needed.setdefault(role, []).extend(t for t in tools if t not in needed.get(role, []))
    return needed


@pytest.fixture
def perf(
    request: pytest.FixtureRequest, pair: BoardPair, hil_inventory: LoadedInventory, hil_baselines: Baselines | None
) -> Perf:
    """`perf.check`, with the command line and the baselines resolved here, once."""
    item = request.node
    options = PerfOptions(
        samples=request.config.getoption("samples"),
        baselines=hil_baselines,
        first_attempts=item.stash.get(confirmation.CONFIRMING, {}),
        suspect=confirmation.suspecter(item, pair) if confirmation.enabled(request.config) else None,
    )
    return Perf(item, pair, hil_inventory, options)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """With --baseline, a suspected regression is re-measured after a power cycle (hil.confirmation)."""
    return confirmation.run_with_confirmation(item, nextitem) if confirmation.enabled(item.config) else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A lab that cannot measure (no enumeration, wrong link speed, hung board) is an ERROR, not a FAIL; a board that
    lacks what the case asks of it (hil.errors.Unavailable, before the sampling) skips it, saying what and where."""
    try:
        return (yield)
    except Unavailable as exc:
        pytest.skip(str(exc))
    except (HilError, MeasurementError) as exc:  # a BoardTimeout already marked its board (Role.run)
        raise MeasurementErrorOutcome(f"{type(exc).__name__}: {exc}") from exc
    except pytest.fail.Exception as exc:
        # pytest-timeout's signal method fails the test ("Timeout (>1200.0s) from pytest-timeout.") from inside
        # whatever command was running: the board may be mid-command, so the next test power-cycles it.
        pair = getattr(item, "funcargs", {}).get("board_pair")
        if "from pytest-timeout" in str(exc) and isinstance(pair, BoardPair):
            pair.mark_suspect("pytest-timeout expired")
        raise
