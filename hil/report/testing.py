"""Hand-made, plausible MetricResults for renderer tests and report previews: descriptive numbers consistent with
the given samples, no statistics engine, no board. Plain module: no pytest.
"""

from __future__ import annotations

from typing import Any

from hil.facts import Facts
from hil.verdict.result import BaselineComparison, MetricResult, Sample, StopReason, Verdict
from hil.verdict.spec import Band, Ceiling, Direction
from hil.verdict.stats import describe

DEFAULT_VALUES = (41.2, 41.9, 40.8, 41.5, 42.0, 41.1, 41.7, 35.2)  # MB/s; the last one an outlier


def _comparison(median: float, baseline: float, regression: bool, runs: int, run_p: float | None) -> BaselineComparison:
    return BaselineComparison(
        baseline_run="20251101T120000Z-abc123",
        baseline_median=baseline,
        baseline_n=10,
        change=(median - baseline) / baseline,
        p_value=0.004 if regression else 0.41,
        regression=regression,
        baseline_runs=runs,
        run_p=run_p,
    )


def example_result(
    verdict: Verdict = Verdict.PASS,
    *,
    metric: str = "usb.msc.read",
    board: str = "vboard-hs",
    params: dict[str, Any] | None = None,
    values: list[float] | tuple[float, ...] = DEFAULT_VALUES,
    warmup: list[float] | tuple[float, ...] = (38.0,),
    band: Band | None = None,
    unit: str = "MB/s",
    reason: str = "",
    ceiling: float | None = 53.0,
    baseline_median: float | None = None,
    baseline_runs: int = 1,
    run_p: float | None = None,
    regression: bool | None = None,
    facts: dict[str, Any] | None = None,
    test_id: str = "",
    error_output: str = "",
    started: float = 1_763_700_000.0,
) -> MetricResult:
    values = list(values)
    stats = describe(values) if len(values) >= 2 else None
    samples = [Sample(value=v, started=started + 2 * i, duration_s=1.5, raw=f"{v} MB/s") for i, v in enumerate(values)]
    warm = [Sample(value=v, started=started - 2, duration_s=1.5, raw=f"{v} MB/s") for v in warmup]
    regressed = verdict is Verdict.REGRESSION if regression is None else regression
    comparison = None
    if baseline_median is not None and stats is not None:
        comparison = _comparison(stats.median, baseline_median, regressed, baseline_runs, run_p)
    return MetricResult(
        metric=metric,
        board=board,
        params={"bs": "1M"} if params is None else params,
        unit=unit,
        direction=Direction.HIGHER,
        band=band or Band(38.0, 48.0),
        max_cv=0.05,
        verdict=verdict,
        reason=reason or f"{verdict}: median {stats.median if stats else float('nan'):.1f} {unit}",
        stop_reason=StopReason.DECIDED,
        samples=samples,
        warmup=warm,
        stats=stats,
        side="low" if verdict is Verdict.FAIL else None,
        ceiling=Ceiling(ceiling, unit, "USB 2.0 high-speed bulk") if ceiling is not None else None,
        efficiency=stats.median / ceiling if stats is not None and ceiling else None,
        baseline=comparison,
        facts=Facts.from_dict({"kernel": "6.1.0-27-amd64", "link_speed": "480M"} if facts is None else facts),
        started=started,
        finished=started + 2 * len(values),
        test_id=test_id,
        error_output=error_output,
    )
