"""The second pass over boards.yaml: what the catalogue knows that the schema cannot.

- every metric name is a catalogue metric (a typo would silently drop its tests from the run);
- a band's unit is one of the metric's quantity (a MiB/s band on a MB/s metric is converted later;
  an ms band on a MB/s metric is an error), and a band says something: no floor at or below zero for
  a rate, no negative edge for any quantity;
- a parameter override that sets one edge keeps the other from the metric's band, and the two must not cross;
- a rate on an emulated link has a maximum (no physical ceiling is enforced there: a figure far above the
  path's own, say fio on tmpfs instead of the drive, must not pass);
- a metric whose validity another decides (fps and corrupt frames, UDP rate and loss) is gated only with it;
- a band gates something and can be met: a lower-is-better metric has a maximum, a higher-is-better rate a
  floor of at least NEAR_ZERO, no edge beyond any figure (1e15), a percentage not capped at 100,
  a relative tolerance at most 50%; no maximum below 0 for a time, nor below the metric's standard floor;
- max_samples is not below min_samples once defaults, the metric and its overrides are layered;
- every setting is one a family declares, of its type and within its range, and the family's own
  cross-checks hold (a transfer no larger than its backing store).

Each problem carries the key path it belongs to, so the loader can name the line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field, StrictBool, StrictFloat, StrictInt, StrictStr, TypeAdapter, ValidationError

from hil.catalogue import Catalogue, Metric, Setting, UnknownName
from hil.inventory.schema import BandSettings, Inventory, MetricConfig, parse_selector
from hil.inventory.specs import band_of, ceiling_for, merged_band
from hil.verdict.spec import Band, Direction
from hil.verdict.units import Quantity, convert, convertible, units_of

RATES = (Quantity.DATA_RATE, Quantity.FRAME_RATE, Quantity.OPERATION_RATE)
BEYOND_ANY_FIGURE = 1e15  # in a metric's own unit (MB/s, bit/s, ms...): no tool prints a figure this large
NEAR_ZERO = 1e-3  # in a rate's own unit (MB/s, fps, IOPS): a floor below it gates nothing (seeds' least: 0.1 MB/s)
WIDEST_TOLERANCE = 0.5  # nominal +- more than half of it is a band of everything from nearly nothing


@dataclass(frozen=True)
class Problem:
    loc: tuple[str, ...]  # key path from the document root
    message: str


def check(inventory: Inventory, catalogue: Catalogue) -> list[Problem]:
    problems: list[Problem] = []
    for pair_name, pair in inventory.pairs.items():
        for name, config in pair.metrics.items():
            loc = ("pairs", pair_name, "metrics", name)
            problems += _sample_counts(loc, config, inventory)
            problems += _metric_problems(loc, name, config, catalogue)
            problems += _gate_problems(loc, name, config, pair.metrics, catalogue, pair.link)
        problems += _settings_problems(("pairs", pair_name, "settings"), pair.settings, catalogue)
    return problems


def _metric_problems(loc: tuple[str, ...], name: str, config: MetricConfig, catalogue: Catalogue) -> list[Problem]:
    try:
        metric = catalogue.metric(name)
    except UnknownName as exc:
        return [Problem(loc, str(exc))]
    known = units_of(metric.quantity)
    if config.unit is not None and config.unit not in known:
        wrong = f"{config.unit!r} does not measure a {metric.quantity}: {name} is in {metric.unit}"
        return [Problem((*loc, "unit"), f"{wrong}; give its band in one of {', '.join(known)}")]
    problems = []
    layers: list[tuple[tuple[str, ...], BandSettings]] = [(loc, config)]
    layers += [((*loc, "params", selector), override) for selector, override in config.params.items()]
    try:
        base = band_of(config, config.unit, metric) if config.has_band else None
    except ValueError as exc:  # a tolerance in a unit of another quantity (5 ms on a MB/s metric)
        return [Problem((*loc, "tolerance"), str(exc))]
    if base is not None and base.low is None and metric.direction is Direction.HIGHER and metric.quantity in RATES:
        problems.append(
            Problem(loc, f"{name} has a maximum and no minimum: a rate gated from above only passes a dead link")
        )
    if base is not None and base.high is None and metric.direction is Direction.LOWER:
        problems.append(
            Problem(loc, f"{name} is lower-is-better and has a minimum only: any figure above it passes; give a max")
        )
    for layer_loc, layer in layers:
        if layer.tolerance is not None and layer.tolerance.relative and layer.tolerance.value > WIDEST_TOLERANCE:
            wide = f"a tolerance of {layer.tolerance.value * 100:g}% passes nearly anything from 0 to twice the nominal"
            problems.append(Problem((*layer_loc, "tolerance"), f"{wide}: at most {WIDEST_TOLERANCE * 100:g}%"))
    for layer_loc, layer in layers:
        if not layer.has_band:
            continue
        try:
            band = band_of(layer, config.unit, metric)
        except ValueError as exc:  # a tolerance in a unit of another quantity (5 ms on a MB/s metric)
            problems.append(Problem((*layer_loc, "tolerance"), str(exc)))
            continue
        if problem := _pointless(band.low, band.high, metric):
            problems.append(Problem(layer_loc, problem))
        elif layer is not config:
            try:  # an override keeps the edge it does not set (hil.inventory.specs.merged_band)
                merged_band(base, layer, config.unit, metric)
            except ValueError as exc:
                problems.append(Problem(layer_loc, f"{exc}, the edge it keeps from the metric's band: give both edges"))
    return problems


def needs_maximum(metric: Metric, link: Any) -> bool:
    """A rate on an emulated link: no physical ceiling is enforced there, so its band needs a max."""
    rate = metric.direction is Direction.HIGHER and metric.quantity in RATES
    return rate and bool(getattr(link, "emulated", False))


def _gate_problems(
    loc: tuple[str, ...],
    name: str,
    config: MetricConfig,
    metrics: dict[str, MetricConfig],
    catalogue: Catalogue,
    link: Any,
) -> list[Problem]:
    """Rules that keep a gate gating: a max on emulated links, a floor the link can carry, companions gated too."""
    if config.informative or name not in catalogue.metrics:
        return []
    metric = catalogue.metric(name)
    problems = _floors_above_ceiling(loc, name, config, metric, link)
    # nominal +- tolerance has its top
    if needs_maximum(metric, link) and config.max is None and config.nominal is None:
        problems.append(
            Problem(
                loc,
                f"{name} on an emulated link needs a maximum: no physical ceiling is enforced there, and a "
                "figure far above the path's own (a tool on RAM instead of the device) must not pass",
            )
        )
    for needed in metric.needs:
        companion = metrics.get(needed)
        if companion is None or companion.informative:
            problems.append(
                Problem(loc, f"{name} is gated, so {needed} must be too: it decides whether the figure is valid")
            )
    return problems


def _floors_above_ceiling(
    loc: tuple[str, ...], name: str, config: MetricConfig, metric: Metric, link: Any
) -> list[Problem]:
    """A floor above what the link can physically carry can never pass: a band in MB/s meant as Mbit/s. Checked
    for the metric's band and for each `params` override, with the ceiling of the cases it selects."""
    if metric.direction is not Direction.HIGHER or getattr(link, "emulated", False):
        return []
    try:
        base = band_of(config, config.unit, metric) if config.has_band else None
    except ValueError:
        return []  # the band's own problem is reported elsewhere
    problems = []
    layers: list[tuple[tuple[str, ...], Band | None, dict[str, str]]] = [(loc, base, {})]
    for selector, override in config.params.items():
        try:
            band = merged_band(base, override, config.unit, metric) if override.has_band else base
        except ValueError:
            continue  # reported by _metric_problems
        layers.append(((*loc, "params", selector), band, parse_selector(selector)))
    for layer_loc, band, params in layers:
        try:
            ceiling = ceiling_for(metric, link, params)
        except (ValueError, KeyError, TypeError):
            continue  # a ceiling that needs parameters this selector does not give
        if band is None or band.low is None or ceiling is None or not ceiling.enforced:
            continue
        if not convertible(ceiling.unit, metric.unit):
            continue
        top = convert(ceiling.value, ceiling.unit, metric.unit)
        if band.low > top:
            above = f"{name}'s floor {band.low:g} {metric.unit} is above the link's ceiling {top:.4g} {metric.unit}"
            never = "it can never pass (a band in MB/s meant as Mbit/s?)"
            problems.append(Problem(layer_loc, f"{above} ({ceiling.basis}): {never}"))
    return problems


def _sample_counts(loc: tuple[str, ...], config: MetricConfig, inventory: Inventory) -> list[Problem]:
    """max_samples below min_samples as a case gets them (defaults, the metric, then its overrides) where the
    file wrote that max_samples: refused, not raised without a word (hil's built-in 20 is raised to the min)."""
    defaults = inventory.defaults
    written = "max_samples" in defaults.model_fields_set or config.max_samples is not None
    metric_level = {**defaults.model_dump(), **config.model_dump(exclude_none=True)}
    layers = [(loc, metric_level, written)]
    layers += [
        (
            (*loc, "params", selector),
            {**metric_level, **override.model_dump(exclude_none=True)},
            written or override.max_samples is not None,
        )
        for selector, override in config.params.items()
    ]
    return [
        Problem(
            layer_loc,
            f"max_samples {settings['max_samples']} is below min_samples {settings['min_samples']} "
            "(after defaults and overrides): sampling would stop before it may decide",
        )
        for layer_loc, settings, max_written in layers
        if max_written and settings["max_samples"] < settings["min_samples"]
    ]


def _pointless(low: float | None, high: float | None, metric: Metric) -> str | None:
    """Why a band's edges cannot mean what was intended, or None."""
    unit = metric.unit
    if unit == "%" and any(edge is not None and edge > 100 for edge in (low, high)):
        return f"a band edge above 100 % for a percentage ({low}, {high}) passes what cannot happen"
    if low is not None and low < 0:
        return f"band floor {low:g} {unit} is below 0: a {metric.quantity} is never negative (tolerance above 100%?)"
    rate = metric.quantity in RATES
    if low is not None and low < NEAR_ZERO and rate and metric.direction is Direction.HIGHER:
        return f"a floor of {low:g} {unit} gates nothing for a rate: give the lowest healthy figure"
    if high is not None and high <= 0 and (rate or metric.quantity is Quantity.TIME):
        return f"a ceiling of {high:g} {unit} for a {'rate' if rate else 'time'} passes nothing: no run can meet it"
    floor = metric.floor
    if high is not None and floor is not None and high < convert(floor.value, floor.unit, unit):
        return f"a maximum of {high:g} {unit} is below the standard's least ({floor.describe()}): no run can meet it"
    if any(edge is not None and abs(edge) >= BEYOND_ANY_FIGURE for edge in (low, high)):
        return f"a band edge of {max(abs(e) for e in (low, high) if e is not None):g} {unit} is beyond any figure"
    if unit == "%" and metric.direction is Direction.LOWER and high is not None and high >= 100:
        return f"a maximum of {high:g}% for a lower-is-better percentage passes everything"
    return None


def _adapter(setting: Setting) -> TypeAdapter:
    bounds = {k: v for k, v in (("ge", setting.minimum), ("le", setting.maximum)) if v is not None}
    if setting.kind is bool:
        return TypeAdapter(StrictBool)
    if setting.kind is int:
        return TypeAdapter(Annotated[StrictInt, Field(**bounds)])
    if setting.kind is float:
        return TypeAdapter(Annotated[StrictFloat | StrictInt, Field(**bounds)])
    return TypeAdapter(StrictStr)


def _settings_problems(loc: tuple[str, ...], values: dict[str, Any], catalogue: Catalogue) -> list[Problem]:
    problems = []
    valid = {}
    for name, value in values.items():
        try:
            setting = catalogue.setting(name)
        except UnknownName as exc:
            problems.append(Problem((*loc, name), str(exc)))
            continue
        try:
            _adapter(setting).validate_python(value)
        except ValidationError as exc:
            message = "; ".join(error["msg"] for error in exc.errors())
            problems.append(Problem((*loc, name), f"{message} ({setting.kind.__name__}: {setting.help})"))
            continue
        if setting.choices and value not in setting.choices:
            problems.append(Problem((*loc, name), f"{value!r} is not one of {', '.join(setting.choices)}"))
            continue
        valid[name] = value
    if not problems:
        problems += [Problem((*loc, name), problem) for name, problem in catalogue.check_settings(valid)]
    return problems
