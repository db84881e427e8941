"""One case's MetricSpec: the catalogue's definition, then boards.yaml's defaults, the metric's entry on
the pair, and the parameter overrides that match the case (least to most specific).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hil.catalogue import Metric
from hil.inventory.schema import BandSettings, Defaults, Link, PairConfig, Sampling, parse_selector
from hil.verdict.spec import Band, Ceiling, MetricSpec
from hil.verdict.units import convert


def ceiling_for(metric: Metric, link: Link, params: dict[str, Any]) -> Ceiling | None:
    """The physical limit this metric's samples must respect on this link; a reference only when emulated."""
    if metric.ceiling is None:
        return None
    ceiling = metric.ceiling.ceiling(link, params)
    if ceiling is not None and link.emulated:
        return replace(ceiling, enforced=False, basis=f"{ceiling.basis}; not enforced: emulated link")
    return ceiling


def band_of(layer: BandSettings, band_unit: str | None, metric: Metric) -> Band:
    """The band a layer (a metric entry or a parameter override) sets, converted into metric.unit. A band may be
    written in any unit of the metric's quantity (`unit: MiB/s` on a MB/s metric, an absolute tolerance '500 us' on
    a ms metric): every edge is converted here, once, so the verdict, the plots and the stored results all speak the
    catalogue's unit."""
    unit = band_unit or metric.unit

    def canonical(value: float, given_in: str = unit) -> float:
        return convert(value, given_in, metric.unit)

    if layer.nominal is not None and layer.tolerance is not None:
        tolerance = layer.tolerance
        width = tolerance.value if tolerance.relative else canonical(tolerance.value, tolerance.unit or unit)
        return Band.around(canonical(layer.nominal), width, relative=tolerance.relative)
    return Band(
        None if layer.min is None else canonical(layer.min), None if layer.max is None else canonical(layer.max)
    )


def merged_band(below: Band | None, layer: BandSettings, unit: str | None, metric: Metric) -> Band:
    """The band after `layer`: nominal with tolerance replaces the band; one edge replaces that edge only, the
    other is kept from the layers below (an override that tightens a minimum must not drop the maximum: a gate
    that stops gating without anyone noticing). ValueError when the edges cross."""
    band = band_of(layer, unit, metric)
    if below is None or layer.nominal is not None:
        return band
    return Band(band.low if layer.min is not None else below.low, band.high if layer.max is not None else below.high)


def spec_for(
    pair: PairConfig, defaults: Defaults, metric: Metric, params: dict[str, Any], *, fixed_samples: int | None = None
) -> MetricSpec:
    settings: dict[str, Any] = defaults.model_dump()
    band: Band | None = None
    cfg = pair.metrics.get(metric.name)
    if cfg is not None:
        layers: list[BandSettings] = [cfg]
        matching = [
            (len(parse_selector(selector)), overrides)
            for selector, overrides in cfg.params.items()
            if all(str(params.get(k)) == v for k, v in parse_selector(selector).items())
        ]
        layers += [overrides for _, overrides in sorted(matching, key=lambda item: item[0])]
        for layer in layers:
            if layer.has_band:
                band = merged_band(band, layer, cfg.unit, metric)
            settings.update(layer.model_dump(exclude_none=True, include=set(Sampling.model_fields)))
    return MetricSpec(
        metric=metric.name,
        unit=metric.unit,
        direction=metric.direction,
        band=None if cfg is None or cfg.informative else band,
        max_cv=settings["max_cv"],
        min_samples=settings["min_samples"],
        # hil's own default is raised to the min; one the file wrote below it is refused (against_catalogue)
        max_samples=max(settings["max_samples"], settings["min_samples"]),
        budget_s=settings["budget_s"],
        warmup=settings["warmup"],
        min_effect=settings["min_effect"],
        min_run_spread=settings["run_spread"],
        pc_load_max=settings.get("pc_load_max"),
        band_source=cfg.source if cfg is not None and cfg.source else None,
        ceiling=ceiling_for(metric, pair.link, params),
        floor=metric.floor,
        fixed_samples=fixed_samples,
        params=dict(params),
        reads=metric.reads,
        check_cv=metric.check_cv,
    )
