"""The CPU a transfer costs, as a metric of its own beside the transfer's rate (seed 001: a transfer should
cost the board less than 25% of its CPU; seed 004: one core at its irq/softirq limit is where the rate stops).

families.yaml declares the companion `<metric>.cpu_busiest` of the rates whose CPU cost can be gated (lower is
better, reads cpu_busiest); a pair that gives it a band in boards.yaml gets it measured from the same runs as
the rate (`perf.check` adds it: the test case does not change).
"""

from __future__ import annotations

READS = "cpu_busiest"  # the quantity hil.measure.cpuload puts beside every run's figures


def companion(metric: str) -> str:
    """The name of a rate's CPU-cost metric."""
    return f"{metric}.{READS}"
