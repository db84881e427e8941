from dataclasses import dataclass, field

import pytest

from hil.report.collect import RESULTS, attach, results_of, take_unreported
from hil.report.testing import example_result
from hil.verdict.result import Verdict


@dataclass
class FakeItem:
    """What collect needs of a pytest item."""

    nodeid: str = "t.py::test_x"
    stash: pytest.Stash = field(default_factory=pytest.Stash)
    user_properties: list = field(default_factory=list)


def _unprefixed(item) -> dict:
    """The properties of a one-metric test without its key's prefix."""
    return {name.removeprefix("usb.msc.read[bs=1M]."): value for name, value in item.user_properties}


def test_attach_one_metric_names_its_properties_by_its_key():
    item = FakeItem(user_properties=[("mine", 1)])
    result = example_result(Verdict.PASS)
    attach(item, result)
    props = _unprefixed(item)
    assert props["mine"] == 1
    assert (props["metrics"], props["verdict"]) == ("usb.msc.read[bs=1M]", "PASS")
    assert props["value"] == "41.35"
    assert (props["unit"], props["band"]) == ("MB/s", "[38, 48]")
    assert (props["cv_percent"], props["samples"], props["stop_reason"]) == ("5.53", "8", "decided")
    assert (props["efficiency_percent"], props["link_speed"]) == ("78.0", "480M")
    assert "usb.msc.read[bs=1M].verdict" in dict(item.user_properties)
    assert result.test_id == "t.py::test_x"
    assert results_of(item) == [result] == item.stash[RESULTS]


def test_a_second_metric_keeps_the_names_and_the_test_verdict_is_the_worst():
    item = FakeItem()
    attach(item, example_result(params={"bs": "4k"}))
    one = [name for name, _ in item.user_properties]
    attach(item, example_result(Verdict.FAIL, params={"bs": "1M"}, facts={}))
    names = [name for name, _ in item.user_properties]
    assert set(one) < set(names)  # the first metric's names stay what they were
    props = dict(item.user_properties)
    assert (props["metrics"], props["verdict"]) == ("usb.msc.read[bs=4k] usb.msc.read[bs=1M]", "FAIL")
    assert "usb.msc.read[bs=4k].verdict" in names and "usb.msc.read[bs=1M].verdict" in names
    assert "usb.msc.read[bs=1M].link_speed" not in names  # no such fact, no property
    assert len(names) == len(set(names))


def test_take_unreported_hands_each_result_out_once():
    item = FakeItem()
    attach(item, example_result(params={"p": 1}))
    assert len(take_unreported(item)) == 1
    assert take_unreported(item) == []
    attach(item, example_result(params={"p": 2}))
    assert [r.params for r in take_unreported(item)] == [{"p": 2}]


def test_the_baseline_comparison_is_in_the_junit_properties():
    item = FakeItem()
    attach(item, example_result(Verdict.REGRESSION, baseline_median=44.0, baseline_runs=3, run_p=2e-5))
    props = _unprefixed(item)
    assert (props["baseline_median"], props["baseline_change_percent"], props["baseline_p_value"]) == (
        "44",
        "-6.02",
        "0.004",
    )
    assert (props["baseline_run_p_value"], props["baseline_runs"], props["baseline_regression"]) == (
        "2e-05",
        "3",
        "true",
    )


def test_one_baseline_run_has_no_run_p_property_and_no_baseline_none():
    item = FakeItem()
    attach(item, example_result(Verdict.PASS, baseline_median=41.0))
    props = _unprefixed(item)
    assert "baseline_run_p_value" not in props and (props["baseline_runs"], props["baseline_regression"]) == (
        "1",
        "false",
    )
    plain = FakeItem()
    attach(plain, example_result(Verdict.PASS))
    assert not [name for name, _ in plain.user_properties if name.startswith("baseline")]
