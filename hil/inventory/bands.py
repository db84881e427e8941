"""A band from boards.yaml, in the metric's own unit.

A band may be written in any unit of the metric's quantity (`unit: MiB/s` on a MB/s metric, an
absolute tolerance '500 us' on a ms metric): every edge is converted here, once, so the verdict, the
plots and the stored results all speak the catalogue's unit.
"""

from __future__ import annotations

from hil.catalogue import Metric
from hil.inventory.schema import BandSettings
from hil.verdict.spec import Band
from hil.verdict.units import convert


def band_of(layer: BandSettings, band_unit: str | None, metric: Metric) -> Band:
    """The band a layer (a metric entry or a parameter override) sets, converted into metric.unit."""
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
