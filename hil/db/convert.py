"""Between hil's records (RunInfo, MetricResult: hil.records.store, hil.verdict.result) and the tables.

The round trip is exact: `hil db export` writes back the results.json a run wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, fields, replace
from datetime import UTC, datetime
from typing import Any

from hil.facts import Facts
from hil.records.files import jsonable
from hil.records.store import InventoryIdentity, RunInfo
from hil.verdict.result import MetricResult, Sample


def moment(text: str) -> datetime:
    """An ISO time of results.json as an aware UTC datetime (a time without zone is taken as UTC)."""
    parsed = datetime.fromisoformat(text)
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    aware = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)  # SQLite keeps no zone
    return aware.isoformat(timespec="seconds")


# RunInfo's fields kept in a column of the same name; the times are datetimes there, and the build's name and
# version and the inventory's path and hash have columns of their own (the build's whole identity is kept too).
RUN_FIELDS_AS_IS = tuple(f.name for f in fields(RunInfo) if f.name not in ("started", "finished", "inventory"))


def run_values(info: RunInfo) -> dict[str, Any]:
    """A run's columns (complete and result_count are the writer's)."""
    build, inventory = info.build or {}, info.inventory or {}
    return {
        **{name: getattr(info, name) for name in RUN_FIELDS_AS_IS},
        "started": moment(info.started),
        "finished": moment(info.finished) if info.finished else None,
        "build_name": build.get("name"),
        "build_version": build.get("version"),
        "inventory_path": inventory.get("path"),
        "inventory_sha256": inventory.get("sha256"),
    }


def run_info(row: Any) -> RunInfo:
    """From a runs row (a Run or a Core row of its table)."""
    inventory = None
    if row.inventory_path is not None or row.inventory_sha256 is not None:
        inventory = InventoryIdentity(path=row.inventory_path or "", sha256=row.inventory_sha256 or "")
    return RunInfo(
        **{name: getattr(row, name) for name in RUN_FIELDS_AS_IS},
        started=iso(row.started) or "",
        finished=iso(row.finished),
        inventory=inventory,
    )


def judged_by(result: MetricResult) -> dict[str, Any]:
    """What a comparison must find equal on both sides: the metric's definition and its thresholds."""
    return {
        "unit": result.unit,
        "direction": str(result.direction),
        "band": asdict(result.band) if result.band else None,
        "min_effect": result.min_effect,
        "run_spread": result.min_run_spread,
    }


# MetricResult's fields kept in a column of the same name: all but its samples, which are rows of their own.
_RESULT_FIELDS = [f.name for f in fields(MetricResult) if f.name not in ("samples", "warmup")]
SAMPLE_FIELDS = tuple(f.name for f in fields(Sample))
SAMPLE_VALUES = ("value", "started", "duration_s")  # what a gate reads of a sample: not its output, not its facts


def with_added_params(result: MetricResult) -> MetricResult:
    """`result` with the parameters its metric gained since it was measured (hil.catalogue.params_added), which
    its facts then name."""
    from hil.catalogue import params_added  # the whole catalogue: only where old results are written

    added = params_added.missing(result.metric, result.params)
    if not added:
        return result
    facts = Facts.from_dict({**result.facts.to_dict(), params_added.FACT: params_added.fact(added)})
    return replace(result, params={**result.params, **added}, facts=facts)


def cv_gated(metric: str) -> bool:
    """Whether `metric`'s spread is gated: the catalogue's check_cv (a metric it does not know: True)."""
    from hil.catalogue import CATALOGUE  # the whole catalogue: only where results are written or gated

    known = CATALOGUE.metrics.get(metric)
    return known is None or known.check_cv


def result_values(result: MetricResult, run_id: str, ordinal: int, run_started: datetime) -> dict[str, Any]:
    data = jsonable(result.to_dict())  # what results.json holds: numpy scalars unwrapped, no NaN
    identity = result.facts.identity()
    return {
        **{name: data[name] for name in _RESULT_FIELDS},
        "run_id": run_id,
        "ordinal": ordinal,
        "run_started": run_started,
        "board_identity": identity or None,
        "params_key": result.key,
        "median": data["stats"]["median"] if data["stats"] else None,
    }


def sample_values(result: MetricResult, result_id: int) -> list[dict[str, Any]]:
    return [
        {"result_id": result_id, "position": position, "warmup": warmup, **jsonable(asdict(sample))}
        for warmup, samples in ((False, result.samples), (True, result.warmup))
        for position, sample in enumerate(samples)
    ]


def metric_result(row: Any, samples: Sequence[Any], sample_fields: Sequence[str] = SAMPLE_FIELDS) -> MetricResult:
    """From a results row and its samples' rows (mapped objects or Core rows) holding `sample_fields`."""
    data: dict[str, Any] = {name: getattr(row, name) for name in _RESULT_FIELDS}
    ordered = sorted(samples, key=lambda s: (s.warmup, s.position))
    data["samples"] = [{name: getattr(s, name) for name in sample_fields} for s in ordered if not s.warmup]
    data["warmup"] = [{name: getattr(s, name) for name in sample_fields} for s in ordered if s.warmup]
    return MetricResult.from_dict(data)
