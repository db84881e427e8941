"""What a verdict does to the running test, after `collect.attach`: PASS and INFO return, MARGINAL warns
(MarginalWarning, in pytest's warnings summary), FAIL, UNSTABLE and REGRESSION fail the test, ERROR makes it
a test *error* (MeasurementErrorOutcome). Each message is "<metric key>: <reason>".
"""

from __future__ import annotations

import warnings

import pytest

from hil.verdict.result import MetricResult, Verdict


class MeasurementErrorOutcome(pytest.fail.Exception):
    """The measurement itself cannot be trusted (unparseable output, missing tool, above the ceiling).

    A subclass of pytest's Failed outcome, like pytest's own XFailed: no traceback, and nothing in the test can
    swallow it with `except Exception`; the report plugin makes it an error in the terminal, HTML and JUnit XML.
    """

    __module__ = "builtins"  # as pytest does for Failed: the report reads "MeasurementErrorOutcome: ..."

    def __init__(self, reason: str) -> None:
        super().__init__(msg=reason, pytrace=False)


class MarginalWarning(UserWarning):
    """The verdict was decided on the median while the confidence interval straddled a band edge."""


def raise_for_verdict(result: MetricResult) -> None:
    verdict = result.verdict
    # The key leads the message: a test measuring several metrics must say which one failed.
    message = f"{result.key}: {result.reason}"
    if verdict in (Verdict.PASS, Verdict.INFO):
        return
    if verdict is Verdict.MARGINAL:
        # stacklevel 2: the warnings summary points at the caller (the fixture), not at this line.
        warnings.warn(MarginalWarning(message), stacklevel=2)
        return
    if verdict is Verdict.ERROR:
        raise MeasurementErrorOutcome(message)
    if verdict in (Verdict.FAIL, Verdict.UNSTABLE, Verdict.REGRESSION):
        # No traceback: it would walk the sampler's frames; the reason is what a reader acts on.
        pytest.fail(message, pytrace=False)
    raise AssertionError(f"unhandled verdict {verdict!r}")  # a new Verdict member needs a decision here


def raise_for_results(results: list[MetricResult]) -> None:
    """The test's outcome from the metrics of one check: the worst verdict decides, every metric that did
    not pass is named (a FAIL next to an ERROR is still worth reading), each MARGINAL warns."""
    for result in results:
        if result.verdict is Verdict.MARGINAL:
            raise_for_verdict(result)
    bad = [r for r in results if r.verdict.severity > Verdict.MARGINAL.severity]
    if len(bad) == 1:
        raise_for_verdict(bad[0])
    if not bad:
        return
    message = "\n".join(f"{r.key}: {r.verdict}: {r.reason}" for r in bad)
    if any(r.verdict is Verdict.ERROR for r in bad):
        raise MeasurementErrorOutcome(message)
    pytest.fail(message, pytrace=False)
