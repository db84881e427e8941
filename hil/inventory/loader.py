"""Load boards.yaml, validate it, and turn its entries into MetricSpecs.

Every problem becomes one InventoryError naming the file, the line, the key path and what is wrong, and
it is raised before any board is touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from labgrid.util.yaml import load as load_labgrid_yaml
from pydantic import ValidationError

from hil.errors import InventoryError
from hil.inventory.schema import BandSettings, Inventory, PairConfig, parse_selector
from hil.verdict.spec import Band, Ceiling, Direction, MetricSpec


def _key_path(loc: tuple[Any, ...]) -> str:
    return "/".join(str(part) for part in loc)


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


def _duplicate_key(node: yaml.Node, path: tuple[str, ...] = ()) -> tuple[int, str, int] | None:
    """(line, key path, first line) of the first key given twice: YAML would silently keep the last one."""
    if isinstance(node, yaml.MappingNode):
        first_lines: dict[str, int] = {}
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value != "<<":
                line = key.start_mark.line + 1
                if key.value in first_lines:
                    return line, "/".join((*path, key.value)), first_lines[key.value]
                first_lines[key.value] = line
            found = _duplicate_key(value, (*path, str(key.value)))
            if found:
                return found
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            found = _duplicate_key(item, (*path, str(index)))
            if found:
                return found
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
        ceiling: Ceiling | None = None,
        fixed_samples: int | None = None,
    ) -> MetricSpec:
        """The MetricSpec for one case: defaults, then the metric, then matching parameter overrides."""
        cfg = self.config.metrics[metric]
        layers: list[BandSettings] = [cfg]
        matching = [
            (len(parse_selector(selector)), overrides)
            for selector, overrides in cfg.params.items()
            if all(str(params.get(k)) == v for k, v in parse_selector(selector).items())
        ]
        layers += [overrides for _, overrides in sorted(matching, key=lambda item: item[0])]

        settings: dict[str, Any] = inventory.defaults.model_dump()
        band_fields: dict[str, Any] = {}
        for layer in layers:
            chosen = layer.model_dump(exclude_none=True, exclude={"unit", "direction", "source", "params"})
            if layer.has_band:  # a layer with a band replaces the whole band, never half of it
                band_fields = {k: chosen.pop(k) for k in ("min", "max", "nominal", "tolerance") if k in chosen}
            settings.update(chosen)
        if "nominal" in band_fields:
            tol = band_fields["tolerance"]
            band = Band.around(band_fields["nominal"], tol["value"], relative=tol["relative"])
        else:
            band = Band(band_fields.get("min"), band_fields.get("max"))
        return MetricSpec(
            metric=metric,
            unit=cfg.unit,
            direction=Direction(cfg.direction),
            band=band,
            max_cv=settings["max_cv"],
            min_samples=settings["min_samples"],
            max_samples=max(settings["max_samples"], settings["min_samples"]),
            budget_s=settings["budget_s"],
            warmup=settings["warmup"],
            min_effect=settings["min_effect"],
            ceiling=ceiling,
            fixed_samples=fixed_samples,
            params=dict(params),
        )


@dataclass(frozen=True)
class LoadedInventory:
    path: Path
    inventory: Inventory
    boards: dict[str, Board]


def load_inventory(path: Path | str) -> LoadedInventory:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise InventoryError(str(path), "", f"cannot read: {exc.strerror}") from exc
    try:
        data = yaml.safe_load(text)
        tree = yaml.compose(text)
    except yaml.YAMLError as exc:
        raise _yaml_problem(path, exc) from exc
    if not isinstance(data, dict):
        raise InventoryError(str(path), "line 1", "must be a mapping with a 'pairs' key")
    duplicate = _duplicate_key(tree)
    if duplicate:
        line, key, first = duplicate
        raise InventoryError(str(path), f"line {line}: {key}", f"given twice (first on line {first})")
    try:
        inventory = Inventory.model_validate(data)
    except ValidationError as exc:
        raise _first_problem(path, tree, exc) from None

    boards = {}
    for name, pair in inventory.pairs.items():
        env_path = (path.parent / pair.env).resolve()
        _check_env(path, tree, name, env_path, pair)
        boards[name] = Board(name=name, config=pair, env_path=env_path)
    return LoadedInventory(path=path, inventory=inventory, boards=boards)


def _yaml_problem(path: Path, exc: yaml.YAMLError) -> InventoryError:
    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return InventoryError(str(path), "", f"not valid YAML: {exc}")
    problem = f"not valid YAML: {exc.problem}"
    if exc.context and exc.context_mark is not None:
        problem += f" ({exc.context} on line {exc.context_mark.line + 1})"
    return InventoryError(str(path), f"line {exc.problem_mark.line + 1}", problem)


def _first_problem(path: Path, tree: yaml.Node | None, exc: ValidationError) -> InventoryError:
    problems = []
    for error in exc.errors():
        clean = _clean_loc(tuple(error["loc"]))
        line = _line_of(tree, clean)
        where = f"line {line}: " if line else ""
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "unknown key (typo?)"
        problems.append((where, _key_path(clean), message))
    where, key, message = problems[0]
    more = "".join(f"\n  also {k}: {m}" for _, k, m in problems[1:])
    return InventoryError(str(path), f"{where}{key}", message + more)


def _check_env(path: Path, tree: yaml.Node | None, name: str, env_path: Path, pair: PairConfig) -> None:
    loc = ("pairs", name, "env")
    key = f"line {_line_of(tree, loc)}: pairs/{name}/env"
    if not env_path.is_file():
        raise InventoryError(str(path), key, f"labgrid environment {env_path} does not exist")
    try:
        env = load_labgrid_yaml(env_path.read_text())
    except Exception as exc:  # labgrid's loader raises plain yaml errors
        raise InventoryError(str(path), key, f"labgrid environment {env_path} is not valid YAML: {exc}") from exc
    targets = (env.get("targets") if isinstance(env, dict) else None) or {}
    for role, role_cfg in pair.roles.items():
        if role_cfg.target not in targets:
            role_key = f"line {_line_of(tree, ('pairs', name, 'roles', role, 'target'))}: pairs/{name}/roles/{role}"
            raise InventoryError(
                str(path),
                role_key + "/target",
                f"target {role_cfg.target!r} is not in {env_path.name} (targets: {', '.join(targets) or 'none'})",
            )
