"""What a verdict does to the running test: return, warn, fail, or fail as a measurement error.

The measuring fixture calls `raise_for_verdict(result)` after `collect.attach`, so every metric's
fate follows one mapping:

    PASS, INFO                    -> return (INFO: recorded, not gated)
    MARGINAL                      -> return, with a MarginalWarning (listed in pytest's warnings summary)
    FAIL, UNSTABLE, REGRESSION    -> pytest.fail("<metric key>: <reason>"): a test failure
    ERROR                         -> MeasurementErrorOutcome("<metric key>: <reason>"): a test *error*
"""

from __future__ import annotations

import warnings

import pytest

from hil.verdict.result import MetricResult, Verdict, metric_key


class MeasurementErrorOutcome(pytest.fail.Exception):
    """The measurement itself cannot be trusted (unparseable output, missing tool, above the ceiling).

    A subclass of pytest's Failed outcome, like pytest's own XFailed: pytest stops the test and
    shows the reason without a traceback (pytrace=False), and nothing in the test can swallow it
    with `except Exception`. The report plugin recognises the class and turns the failure into an
    error in the terminal, the HTML and the JUnit XML.
    """

    __module__ = "builtins"  # as pytest does for Failed: the report reads "MeasurementErrorOutcome: ..."

    def __init__(self, reason: str) -> None:
        super().__init__(msg=reason, pytrace=False)


class MarginalWarning(UserWarning):
    """The verdict was decided on the median while the confidence interval straddled a band edge."""


def raise_for_verdict(result: MetricResult) -> None:
    verdict = result.verdict
    # The key leads the message: a test measuring several metrics must say which one failed.
    message = f"{metric_key(result.metric, result.params)}: {result.reason}"
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
    if not results:
        return
    for result in results:
        if result.verdict is Verdict.MARGINAL:
            raise_for_verdict(result)
    worst = max(results, key=lambda result: result.verdict.severity)
    bad = [r for r in results if r.verdict.severity > Verdict.MARGINAL.severity]
    if worst.verdict.severity <= Verdict.MARGINAL.severity:
        return
    if len(bad) == 1:
        raise_for_verdict(worst)
    message = "\n".join(f"{metric_key(r.metric, r.params)}: {r.verdict}: {r.reason}" for r in bad)
    if worst.verdict is Verdict.ERROR:
        raise MeasurementErrorOutcome(message)
    pytest.fail(message, pytrace=False)
