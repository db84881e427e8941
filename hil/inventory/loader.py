"""Load boards.yaml, validate it, and hand out each pair's MetricSpecs.

Every problem becomes one InventoryError naming the file, the line, the key path and what is wrong, and
it is raised before any board is touched. The passes, in order:
1. the file is a bounded regular file of UTF-8 YAML, parsed into a node tree (hil.inventory.yamlfile);
2. the tree is bounded in depth and alias expansion (yamlfile); no key is given twice, no string holds a
   control character (a quoted "\\x15cmd\\r" still runs a command when typed on an interactive console);
3. the schema (hil.inventory.schema, pydantic): keys, types, band forms, links;
4. the catalogue (hil.inventory.against_catalogue): metric names, band units and sense, settings;
5. each pair's labgrid environment exists and has the targets its roles name (with a RemotePlace for a
   role on a place).
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from labgrid.util.yaml import load as load_labgrid_yaml
from pydantic import ValidationError

from hil.catalogue import CATALOGUE, Catalogue, Setting
from hil.errors import InventoryError, LabError
from hil.inventory import against_catalogue, yamlfile
from hil.inventory.schema import Inventory, PairConfig
from hil.inventory.specs import spec_for
from hil.verdict.spec import MetricSpec

View = TypeVar("View")
# `env: lab/rk3399.yaml` is a file beside the inventory (a lab keeps its env files with its boards.yaml);
# `env: hil:vlab/env.yaml` one inside the installed hil package: an inventory kept outside hil's repository (a BSP
# team's own suite on top of a released hil) reaches the virtual lab's environment this way, wherever pip put hil.
PACKAGED = "hil:"
PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # the hil package directory


def _clean_loc(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    # pydantic puts the tagged-union tag ("link.usb.speed"), validator names and "[key]" (an invalid dict
    # key) in the location: drop them, users never typed them.
    return tuple(p for p in loc if p not in ("usb", "pcie", "[key]") and not str(p).startswith("function-"))


def _line_of(node: yaml.Node | None, loc: tuple[Any, ...]) -> int | None:
    """Line (1-based) of the deepest key along loc that exists in the YAML tree.

    The key's line, not its value's: the value of `usb.msc.read:` starts on the line of its first entry,
    which would point a problem of the whole metric at an unrelated line.
    """
    if node is None:
        return None
    line = node.start_mark.line + 1
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            entry = next(((key, value) for key, value in node.value if key.value == str(part)), None)
            if entry is None:
                break
            line, node = entry[0].start_mark.line + 1, entry[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def _where(tree: yaml.Node | None, loc: tuple[Any, ...]) -> str:
    """'line N: key/path' for a problem at `loc` (N: the line of its deepest key the file has)."""
    line = _line_of(tree, loc)
    path = "/".join(str(part) for part in loc)
    return f"line {line}: {path}" if line else path


def _walk(
    node: yaml.Node, path: tuple[str, ...] = (), seen: set[int] | None = None
) -> Iterator[tuple[tuple[str, ...], yaml.Node | None, yaml.Node]]:
    """(path, key node or None, value node) for every node once, aliases visited once."""
    seen = set() if seen is None else seen
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
            yield (*path, name), key, value
            yield from _walk(key, (*path, name), seen)
            yield from _walk(value, (*path, name), seen)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield (*path, str(index)), None, item
            yield from _walk(item, (*path, str(index)), seen)


def _duplicate_key(tree: yaml.Node) -> tuple[str, str] | None:
    """(where, problem) of the first key given twice: YAML would silently keep the last one."""
    for path, _, node in [((), None, tree), *_walk(tree)]:
        if not isinstance(node, yaml.MappingNode):
            continue
        first_lines: dict[str, int] = {}
        for key, _value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value != "<<":
                line = key.start_mark.line + 1
                if key.value in first_lines:
                    return (
                        f"line {line}: {'/'.join((*path, key.value))}",
                        f"given twice (first on line {first_lines[key.value]})",
                    )
                first_lines[key.value] = line
    return None


def _control_character(tree: yaml.Node) -> tuple[str, str] | None:
    """(where, problem) of the first key or string holding a control character."""
    for path, key, node in [((), None, tree), *_walk(tree)]:
        for scalar in (key, node):
            if isinstance(scalar, yaml.ScalarNode) and any(ord(c) < 32 or ord(c) == 127 for c in scalar.value):
                line = scalar.start_mark.line + 1
                return (
                    f"line {line}: {'/'.join(path)}" if path else f"line {line}",
                    f"{scalar.value!r} holds a control character or line break: not allowed in any value "
                    "(write long text on one line, or with '>-')",
                )
    return None


@dataclass(frozen=True)
class Board:
    """One pair of boards.yaml with the paths it names resolved."""

    name: str
    config: PairConfig
    env_path: Path

    def spec_for(
        self,
        inventory: Inventory,
        metric: str,
        params: dict[str, object],
        *,
        fixed_samples: int | None = None,
        catalogue: Catalogue = CATALOGUE,
    ) -> MetricSpec:
        """The MetricSpec for one case: catalogue, defaults, the metric's entry, matching parameter overrides."""
        return spec_for(self.config, inventory.defaults, catalogue.metric(metric), params, fixed_samples=fixed_samples)

    def setting(self, name: str, catalogue: Catalogue = CATALOGUE) -> Any:
        """A setting's value on this pair: boards.yaml's (validated at load time) or the catalogue's default."""
        return self._value(catalogue.setting(name))

    def settings(
        self, view: type[View], catalogue: Catalogue = CATALOGUE, *, required: tuple[str, ...] = (), example: str = ""
    ) -> View:
        """A family's settings on this pair, typed: `board.settings(MscSettings).backing_mb` is an int.

        `required`: fields that must not be empty here (a real pair's addresses, a device's serial): else a
        LabError naming them as boards.yaml spells them, with `example`."""
        family = catalogue.family_viewed_by(view)
        values = family.read(self._value)
        if unknown := set(required) - {setting.attribute for setting in family.settings}:
            raise ValueError(f"{view.__name__} has no field {sorted(unknown)}")
        missing = [s.name for s in family.settings if s.attribute in required and not getattr(values, s.attribute)]
        if missing:
            raise LabError(f"{self.name}: set {', '.join(missing)} in its settings in boards.yaml{example}")
        return typing.cast(View, values)

    def _value(self, setting: Setting) -> Any:
        value = self.config.settings.get(setting.name, setting.default)
        return float(value) if setting.kind is float else value


@dataclass(frozen=True)
class LoadedInventory:
    path: Path
    inventory: Inventory
    boards: dict[str, Board]
    catalogue: Catalogue = CATALOGUE

    def where(self, *loc: str) -> str:
        """'line N: pairs/x/...' for a problem found after loading."""
        return _where(self._tree, loc)

    @functools.cached_property
    def _tree(self) -> yaml.Node | None:
        """The file composed again for its lines, once, when a first problem needs one."""
        return _compose(self.path, yamlfile.read_text(self.path))


def load_inventory(
    path: Path | str, catalogue: Catalogue = CATALOGUE, *, lg_env: Path | None = None
) -> LoadedInventory:
    """The inventory at `path`, checked; `lg_env` (labgrid's --lg-env / LG_ENV) is every pair's labgrid
    environment, replacing the pairs' own `env`."""
    path = Path(path)
    try:
        text = yamlfile.read_text(path)
    except yamlfile.YamlProblem as exc:
        raise _yaml_problem(path, exc) from None
    tree = _compose(path, text)
    loader = yaml.SafeLoader(text)
    try:
        data = None if tree is None else loader.construct_document(tree)
    except yaml.YAMLError as exc:
        raise _yaml_problem(path, yamlfile.YamlProblem.of(exc)) from exc
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise InventoryError(str(path), "line 1", "must be a mapping with a 'pairs' key")
    try:
        inventory = Inventory.model_validate(data)
    except ValidationError as exc:
        raise _first_problem(path, tree, exc) from None
    if problems := against_catalogue.check(inventory, catalogue):
        raise _error(path, tree, problems)

    boards = {name: Board(name, pair, _env(path, tree, name, pair, lg_env)) for name, pair in inventory.pairs.items()}
    return LoadedInventory(path=path, inventory=inventory, boards=boards, catalogue=catalogue)


def _compose(path: Path, text: str) -> yaml.Node | None:
    try:
        tree = yamlfile.compose(text)
    except yamlfile.YamlProblem as exc:
        raise _yaml_problem(path, exc) from None
    if tree is None:
        return None
    if problem := _duplicate_key(tree) or _control_character(tree):
        raise InventoryError(str(path), *problem)
    return tree


def _yaml_problem(path: Path, problem: yamlfile.YamlProblem) -> InventoryError:
    return InventoryError(str(path), f"line {problem.line}" if problem.line else "", problem.message)


def _first_problem(path: Path, tree: yaml.Node | None, exc: ValidationError) -> InventoryError:
    problems = [
        against_catalogue.Problem(
            _clean_loc(tuple(error["loc"])),
            "unknown key (typo?)" if error["type"] == "extra_forbidden" else error["msg"].removeprefix("Value error, "),
        )
        for error in exc.errors()
    ]
    return _error(path, tree, problems)


def _error(path: Path, tree: yaml.Node | None, problems: list[against_catalogue.Problem]) -> InventoryError:
    """The first problem with its line, the others after it."""
    more = "".join(f"\n  also {'/'.join(map(str, p.loc))}: {p.message}" for p in problems[1:])
    return InventoryError(str(path), _where(tree, problems[0].loc), problems[0].message + more)


def _env(path: Path, tree: yaml.Node | None, name: str, pair: PairConfig, lg_env: Path | None) -> Path:
    """The pair's labgrid environment file, checked to have the targets (and places) its roles name."""
    key = _where(tree, ("pairs", name, "env"))
    if lg_env is not None:
        env_path = lg_env.resolve()
    elif pair.env is None:
        raise InventoryError(str(path), key, "no labgrid environment: set `env` or run with --lg-env (LG_ENV)")
    elif pair.env.startswith(PACKAGED):
        relative = Path(pair.env.removeprefix(PACKAGED))
        if relative.is_absolute() or ".." in relative.parts:
            raise InventoryError(
                str(path), key, f"{pair.env!r}: a path inside the hil package, relative and without '..'"
            )
        env_path = PACKAGE_ROOT / relative
    else:
        env_path = (path.parent / pair.env).resolve()
    if not env_path.is_file():
        raise InventoryError(str(path), key, f"labgrid environment {env_path} does not exist")
    try:
        text = yamlfile.check_file(env_path)
    except yamlfile.YamlProblem as exc:
        where = f" line {exc.line}" if exc.line else ""
        raise InventoryError(str(path), key, f"labgrid environment {env_path}{where}: {exc.message}") from None
    try:
        env = load_labgrid_yaml(text)
    except Exception as exc:  # labgrid's loader raises plain yaml errors
        raise InventoryError(str(path), key, f"labgrid environment {env_path} is not valid YAML: {exc}") from exc
    targets = (env.get("targets") if isinstance(env, dict) else None) or {}
    for role, role_cfg in pair.roles.items():
        if role_cfg.target not in targets:
            raise InventoryError(
                str(path),
                _where(tree, ("pairs", name, "roles", role, "target")),
                f"target {role_cfg.target!r} is not in {env_path.name} (targets: {', '.join(targets) or 'none'})",
            )
        if role_cfg.place is not None and not _has_remote_place(targets[role_cfg.target]):
            raise InventoryError(
                str(path),
                _where(tree, ("pairs", name, "roles", role, "place")),
                f"target {role_cfg.target!r} of {env_path.name} has no RemotePlace resource: a role on a place "
                "needs one (hil sets its name to the place it reserved; see hil/vlab/remote-env.yaml)",
            )
    return env_path


def _has_remote_place(target: object) -> bool:
    resources = target.get("resources") if isinstance(target, dict) else None
    if isinstance(resources, dict):
        return "RemotePlace" in resources
    return isinstance(resources, list) and any(isinstance(r, dict) and "RemotePlace" in r for r in resources)
