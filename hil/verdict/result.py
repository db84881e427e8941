"""What a measured metric ends as: its samples, statistics, verdict and why sampling stopped.

These records are what the report layer stores and renders; `to_dict` is the JSON schema of
`reports/results.json`, so change it only together with the report and its readers.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Annotated, Any

from pydantic import WithJsonSchema

from hil.facts import Facts
from hil.verdict.measurement import Observed
from hil.verdict.spec import Band, Ceiling, Direction, MetricSpec
from hil.verdict.units import convert, convertible


class Verdict(StrEnum):
    PASS = "PASS"
    MARGINAL = "MARGINAL"  # decided on the median at max_samples while the interval straddled an edge
    # (also: interval inside the band at the limit, CV above max_cv but not significantly; see decide.py)
    FAIL = "FAIL"  # interval outside the band (side says which)
    UNSTABLE = "UNSTABLE"  # CV stayed above max_cv
    REGRESSION = "REGRESSION"  # significantly and materially worse than the stored baseline
    ERROR = "ERROR"  # the measurement itself is not trustworthy: unparseable, missing tool, above ceiling
    INFO = "INFO"  # recorded, not gated: the pair gives no band for it

    @property
    def passed(self) -> bool:
        """The test may pass on this verdict (PASS, MARGINAL with a warning); INFO is not a verdict on it."""
        return self in (Verdict.PASS, Verdict.MARGINAL)

    @property
    def severity(self) -> int:
        """How bad, for picking a test's outcome from its metrics: the worst one decides."""
        return _SEVERITY.index(self)


# Least bad first; ERROR last: a result that cannot be trusted outranks one that is merely bad.
_SEVERITY = tuple(Verdict(v) for v in ("INFO", "PASS", "MARGINAL", "UNSTABLE", "REGRESSION", "FAIL", "ERROR"))


class StopReason(StrEnum):
    DECIDED = "decided"  # the interval settled inside or outside the band with CV in limits
    FIXED_COUNT = "fixed_count"  # --samples N
    MAX_SAMPLES = "max_samples"
    BUDGET = "budget"  # wall-clock budget ran out
    CV_NOT_FALLING = "cv_not_falling"  # more samples would not make it stable
    ERROR = "error"  # a sample failed: nothing more was taken


@dataclass
class Sample:
    value: float
    started: float  # epoch seconds
    duration_s: float
    raw: str = ""  # the tool output the value was parsed from, for audit (kept once per run of a check)
    details: dict[str, Any] = field(default_factory=dict)  # the tool's per-run facts: bytes, frames, options
    observed: Observed = field(default_factory=Observed)  # hil's, around the run: CPU loads, interface counters

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Sample:
        """From results.json; a file written before `observed` existed kept those facts in `details`."""
        data = dict(json_object(data, "a sample"))
        data["observed"] = Observed.from_dict(json_object(data.get("observed") or {}, "'observed'"))
        return cls(**data)


@dataclass
class SampleStats:
    n: int
    mean: float
    median: float
    std: float  # sample standard deviation (ddof=1)
    cv: float  # std / mean, as a fraction
    ci_low: float  # Student-t confidence interval of the mean
    ci_high: float
    confidence: float
    minimum: float
    maximum: float
    q1: float
    q3: float
    outliers: list[int] = field(default_factory=list)  # indices into samples, Tukey 1.5 IQR


@dataclass
class BaselineComparison:
    baseline_run: str  # which stored run the samples came from
    baseline_median: float
    baseline_n: int
    change: float  # (median - baseline median) / baseline median, signed
    p_value: float  # one-sided Mann-Whitney U, in the "worse" direction
    regression: bool
    # The defaults keep older results.json readable.
    alpha: float = 0.01  # significance level the p-value was held to
    min_effect: float = 0.05  # smallest worsening of the median that counts, as a fraction
    reason: str = ""  # one line: why this is, or is not, a regression
    baseline_runs: int = 1  # runs (boots) the baseline holds for this metric
    run_spread: float | None = None  # relative SD of run medians (None: unknown, one run)
    run_spread_df: int = 0  # its degrees of freedom
    run_p: float | None = None  # one-sided p of this run's median among the baseline's run medians
    first_attempt: dict[str, Any] | None = None  # the suspecting measurement, when this one confirms it


# The MetricSpec fields a result carries as they are.
_FROM_SPEC = ("metric", "unit", "direction", "band", "max_cv", "ceiling", "min_effect", "min_run_spread")


@dataclass
class MetricResult:
    metric: str
    board: str
    params: dict[str, Any]
    unit: str
    direction: Direction
    band: Band | None  # None: informative (verdict INFO)
    max_cv: float
    verdict: Verdict
    reason: str  # one line a release engineer can act on
    stop_reason: StopReason
    samples: list[Sample] = field(default_factory=list)
    warmup: list[Sample] = field(default_factory=list)
    stats: SampleStats | None = None
    side: str | None = None  # "low" / "high" for FAIL
    ceiling: Ceiling | None = None
    efficiency: float | None = None  # median / ceiling
    baseline: BaselineComparison | None = None
    # The lab's and the verdict's (hil.facts): kernel, link, loads. Stored flat (Facts.to_dict), so the JSON
    # schema of results.json says an object of named facts, not the record's fields.
    facts: Annotated[Facts, WithJsonSchema({"additionalProperties": True, "title": "Facts", "type": "object"})] = field(
        default_factory=Facts
    )
    started: float = 0.0
    finished: float = 0.0
    test_id: str = ""
    error_output: str = ""  # raw output that did not parse, shown verbatim
    # What a later comparison with other runs needs of the spec (boards.yaml's min_effect and run_spread).
    min_effect: float = 0.05
    min_run_spread: float = 0.01

    @property
    def values(self) -> list[float]:
        return [s.value for s in self.samples]

    @property
    def key(self) -> str:
        """The metric with its parameters (metric_key), e.g. 'usb.msc.read[bs=1M]'."""
        return metric_key(self.metric, self.params)

    def ceiling_in_unit(self) -> float | None:
        """The ceiling in the result's unit (a MB/s bus ceiling on an Mbit/s metric), or None."""
        ceiling = self.ceiling
        if ceiling is None or not convertible(ceiling.unit, self.unit):
            return None
        return convert(ceiling.value, ceiling.unit, self.unit)

    def to_dict(self) -> dict[str, Any]:
        enums = {name: str(getattr(self, name)) for name in ("direction", "verdict", "stop_reason")}
        return asdict(self) | enums | {"facts": self.facts.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MetricResult:
        data = dict(json_object(data, "a result"))
        data["direction"] = Direction(data["direction"])
        data["verdict"] = Verdict(data["verdict"])
        data["stop_reason"] = StopReason(data["stop_reason"])
        data["samples"] = [Sample.from_dict(s) for s in data.get("samples", [])]
        data["warmup"] = [Sample.from_dict(s) for s in data.get("warmup", [])]
        data["facts"] = Facts.from_dict(json_object(data.get("facts") or {}, "'facts'"))
        kinds = {"band": Band, "stats": SampleStats, "ceiling": Ceiling, "baseline": BaselineComparison}
        for name, kind in kinds.items():
            found = data[name] if kind is Band else data.get(name)  # a band is always given (null: informative)
            if found is not None:
                found = json_object(found, repr(name))
                if kind is SampleStats:  # results.json and the database hold NaN as null (JSON has no NaN)
                    found = {k: math.nan if v is None else v for k, v in found.items()}
                data[name] = kind(**found)
        return cls(**data)

    @classmethod
    def for_spec(cls, spec: MetricSpec, board: str, **fields: Any) -> MetricResult:
        copied = {name: getattr(spec, name) for name in _FROM_SPEC}
        return cls(board=board, params=dict(spec.params), **copied, **fields)


def json_object(value: Any, what: str) -> dict[str, Any]:
    """`value`, a JSON object read from a file or a spool; else TypeError naming `what` (any JSON may stand there)."""
    if not isinstance(value, dict):
        raise TypeError(f"{what} must be a JSON object, not {type(value).__name__}")
    return value


# The parameter of a figure measured on the virtual board's instruction-counted clock (boards.yaml `clock`), set by
# hil.perf: `usb.msc.read[bs=1M,clock=virtual]` is another figure than the real clock's `usb.msc.read[bs=1M]`, so
# baselines, trends and the release gate never compare the two.
CLOCK_PARAM = "clock"


def metric_key(metric: str, params: dict[str, Any]) -> str:
    """Stable identity of a metric with its parameters, e.g. 'usb.msc.read[bs=1M]': it keys baselines and trends
    (and so keeps the clocks apart: CLOCK_PARAM)."""
    if not params:
        return metric
    inner = ",".join(f"{name}={params[name]}" for name in sorted(params))
    return f"{metric}[{inner}]"
