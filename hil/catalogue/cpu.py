"""The CPU a transfer costs, as a metric of its own beside the transfer's rate (seed 001: a transfer should
cost the board less than 25% of its CPU; seed 004: one core at its irq/softirq limit is where the rate stops).

A family declares `cpu_busiest(metric)` for the rates whose CPU cost can be gated; a pair that gives the
companion `<metric>.cpu_busiest` a band in boards.yaml gets it measured from the same runs as the rate
(`perf.check` adds it: the test case does not change), lower is better.
"""

from __future__ import annotations

from hil.catalogue.model import Metric, lower

CPU_SEED = (
    'seed 001 "USB mass storage Average CPU Load measurement" (busy time, not idle and not io: "~ < 25%"); '
    "seed 004 (mpstat -P ALL: one core at its limit)"
)
READS = "cpu_busiest"  # the quantity hil.measure.cpuload puts beside every run's figures


def companion(metric: str) -> str:
    """The name of a rate's CPU-cost metric."""
    return f"{metric}.{READS}"


def cpu_busiest(metric: str, *, seed: str) -> Metric:
    return lower(
        companion(metric),
        seed,
        f"the runs of {metric}: the measuring role's busiest core, % busy (not idle, not iowait)",
        unit="%",
        reads=READS,
        check_cv=False,  # a load's spread says nothing about the transfer's stability: its band alone decides
    )
