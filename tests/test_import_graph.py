"""The layers of hil import one way: board inventory -> lab control -> measurement -> verdict -> report.

Every package and top-level module of hil has its floor in PACKAGE_ORDER, lowest first: a module imports only from
its own package and the floors below it, at load time or inside a function, so no two packages import each other.

`hil/lab` controls boards and sets up what a family needs on a pair; it never imports the measuring,
verdict or reporting layers, the pytest plugin, or pytest itself (skips are markers the plugin applies).
And no module of hil imports, at load time, a module that imports it back. Imports under TYPE_CHECKING
never run and imports inside functions run late: neither is a load-time import.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

HIL = Path(__file__).resolve().parents[1] / "hil"
# hil's packages and top-level modules from the ground floor up, the one place their order is written.
PACKAGE_ORDER = (
    # ground: errors, paths, signals, the lab's service names, Debian's packages, caches and images; facts
    "errors", "paths", "signals", "services", "install", "cache", "rootfs", "programs", "image", "facts",
    # what a metric is and how it is judged; the catalogue of metrics; the inventory; the build under test
    "verdict", "catalogue", "inventory", "scheduling", "build",
    "records",  # a run's records: results.json, its files, exit statuses (db and report both stand on it)
    "lab", "vlab", "bench",  # lab control: labgrid, the virtual lab, the rehearsal bench
    "measure", "labrepo",  # measurement
    "db", "hookspecs", "report", "confirmation", "diagnose", "dashboard", "calibrate",  # store, reports, gates
    "parametrization", "pipeline", "perf", "rootdir", "plugin", "stock", "cli", "__main__",  # entry points
)  # fmt: skip
LAB_MUST_NOT_IMPORT = ("hil.measure", "hil.verdict", "hil.report", "hil.plugin", "hil.perf", "pytest", "_pytest")


def _module_name(path: Path) -> str:
    parts = path.relative_to(HIL.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, *, load_time_only: bool, typing_too: bool = False) -> set[str]:
    """Modules `path` imports (`from a.b import c` counts as a.b and a.b.c: c may be a module); typing_too:
    with those under TYPE_CHECKING."""
    tree = ast.parse(path.read_text(), filename=str(path))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if not typing_too and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for child in ast.walk(node))
        if load_time_only and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            skipped.update(id(child) for child in ast.walk(node) if child is not node)
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _hil_modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(HIL.rglob("*.py"))}


def test_lab_imports_neither_measurement_nor_verdict_nor_report_nor_pytest():
    offending = []
    for name, path in _hil_modules().items():
        if not (name == "hil.lab" or name.startswith("hil.lab.")):  # hil.labrepo is not hil.lab
            continue
        for imported in sorted(_imports(path, load_time_only=False)):
            if any(imported == layer or imported.startswith(layer + ".") for layer in LAB_MUST_NOT_IMPORT):
                offending.append(f"{name} imports {imported}")
    assert not offending, "\n".join(offending)


def _assert_no_cycle(modules: dict[str, Path], **which: bool) -> None:
    graph = {
        name: {imported for imported in _imports(path, **which) if imported in modules and imported != name}
        for name, path in modules.items()
    }
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        raise AssertionError(f"import cycle: {' -> '.join(exc.args[1])}") from None


def test_no_import_cycle_in_hil():
    _assert_no_cycle(_hil_modules(), load_time_only=True)


def test_no_circle_in_the_lab_layer_even_for_the_type_checker():
    """hil.lab imports one way also under TYPE_CHECKING and inside functions: in hil.lab.board, role uses
    background and deploy, which type against hil.lab.board.shell.Shell instead of importing role back; the
    modules that work on a pair (environments, pair_facts, usb_gadget.on_link) import hil.lab.pair, never the
    other way round."""
    lab = {name: path for name, path in _hil_modules().items() if name == "hil.lab" or name.startswith("hil.lab.")}
    _assert_no_cycle(lab, load_time_only=False, typing_too=True)
    pair = _imports(HIL / "lab" / "pair.py", load_time_only=False, typing_too=True)
    assert not any(
        name.startswith(("hil.lab.environments", "hil.lab.pair_facts", "hil.lab.usb_gadget.on_link")) for name in pair
    )


def test_the_checks_see_what_they_look_for():
    """The walker finds a module-level import, and leaves TYPE_CHECKING and in-function ones out of the graph."""
    pair = _imports(HIL / "lab" / "pair.py", load_time_only=True)
    assert "hil.lab.board.role" in pair or "hil.lab.board.role.Role" in pair
    assert not any(name.startswith("hil.lab.pair") for name in pair)
    camera = _imports(HIL / "lab" / "usb_host" / "camera.py", load_time_only=False)
    assert "hil.lab.pair" not in camera  # only under TYPE_CHECKING there


def _floor(module: str) -> str | None:
    """The package or top-level module of hil a module name belongs to (None: hil itself, or not hil)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "hil" and len(parts) > 1 else None


def test_every_package_of_hil_has_its_floor():
    floors = {_floor(name) for name in _hil_modules()} - {None}
    assert floors - set(PACKAGE_ORDER) == set(), "a new package of hil: give it its floor in PACKAGE_ORDER"
    assert set(PACKAGE_ORDER) - floors == set(), "PACKAGE_ORDER names a package hil no longer has"


def test_no_package_imports_from_a_floor_above_it():
    """Inside functions too: an import deferred for speed still makes the lower package depend on the higher."""
    offending = []
    for name, path in _hil_modules().items():
        floor = _floor(name)
        if floor is None:
            continue
        for imported in sorted(_imports(path, load_time_only=False)):
            target = _floor(imported)
            if target in PACKAGE_ORDER and PACKAGE_ORDER.index(target) > PACKAGE_ORDER.index(floor):
                offending.append(f"{name} ({floor}) imports {imported} ({target}, a floor above)")
    assert not offending, "\n".join(offending)


def test_the_order_check_sees_an_arrow_up():
    """db once imported its records from report, the floor above it: the walker names such an import."""
    found = _imports(HIL / "db" / "convert.py", load_time_only=False)
    assert "hil.records.store" in found
    assert PACKAGE_ORDER.index("records") < PACKAGE_ORDER.index("db") < PACKAGE_ORDER.index("report")
