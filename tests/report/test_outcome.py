import warnings

import pytest

from hil.report.outcome import MarginalWarning, MeasurementErrorOutcome, raise_for_verdict
from hil.report.testing import example_result
from hil.verdict.result import Verdict


def test_pass_returns_quietly():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        raise_for_verdict(example_result(Verdict.PASS))


def test_marginal_returns_with_a_warning_naming_the_metric():
    with pytest.warns(MarginalWarning, match=r"usb\.msc\.read\[bs=1M\]: straddles 38"):
        raise_for_verdict(example_result(Verdict.MARGINAL, reason="straddles 38"))


@pytest.mark.parametrize("verdict", [Verdict.FAIL, Verdict.UNSTABLE, Verdict.REGRESSION])
def test_failing_verdicts_fail_the_test(verdict):
    with pytest.raises(pytest.fail.Exception, match="too slow") as info:
        raise_for_verdict(example_result(verdict, reason="too slow"))
    assert not isinstance(info.value, MeasurementErrorOutcome)


def test_error_raises_the_measurement_error_outcome():
    with pytest.raises(MeasurementErrorOutcome, match=r"usb\.msc\.read\[bs=1M\]: above the ceiling"):
        raise_for_verdict(example_result(Verdict.ERROR, reason="above the ceiling"))


def test_measurement_error_escapes_except_exception():
    # A test body's broad `except Exception` must not swallow an untrustworthy measurement.
    with pytest.raises(MeasurementErrorOutcome):
        try:
            raise MeasurementErrorOutcome("x")
        except Exception:  # pragma: no cover - the point is that this does not run
            pytest.fail("swallowed")
