"""End to end through pytest: a generated test module attaches hand-made results (nothing measured)."""

import json
import re
import xml.etree.ElementTree as ET
from html import unescape

import pytest
from sqlalchemy import text

from hil.db.engine import open_db

TESTS = """
import pytest
from hil.report.collect import attach
from hil.report.outcome import raise_for_verdict
from hil.report.testing import example_result
from hil.verdict.result import MetricResult, StopReason, Verdict
from hil.verdict.spec import Band, Direction


@pytest.mark.parametrize("verdict", ["PASS", "MARGINAL", "FAIL", "UNSTABLE", "REGRESSION"])
def test_read(request, verdict):
    result = example_result(
        Verdict(verdict),
        params={"bs": "1M", "case": verdict.lower()},
        reason=f"{verdict.lower()} on purpose",
        baseline_median=44.0 if verdict == "REGRESSION" else None,
    )
    attach(request.node, result)
    raise_for_verdict(result)


def test_unparseable(request):
    # Field by field: an ERROR before the first counted sample, as the sampler would hand it over.
    result = MetricResult(
        metric="usb.msc.write", board="vboard-hs", params={"bs": "1M"}, unit="MB/s",
        direction=Direction.HIGHER, band=Band(low=30.0), max_cv=0.05, verdict=Verdict.ERROR,
        reason="dd printed no rate", stop_reason=StopReason.ERROR,
        error_output="dd: error writing '/dev/sda': No space left on device",
    )
    attach(request.node, result)
    raise_for_verdict(result)


def test_two_metrics(request):
    for bs in ("4k", "1M"):
        result = example_result(
            metric="usb.ecm.tcp", params={"bs": bs}, unit="Mbit/s", values=[251.0, 248.5, 255.2, 250.1],
            ceiling=None, band=Band(200.0, None),
        )
        attach(request.node, result)
        raise_for_verdict(result)


def test_without_metrics():
    pass
"""

REPORT_ARGS = ("--html=reports/report.html", "--self-contained-html", "--junitxml=reports/junit.xml")


def _results(path):
    data = json.loads((path / "reports" / "results.json").read_text())
    assert data["schema"] == 1
    return data


def _cases(path):
    suite = ET.parse(path / "reports" / "junit.xml").getroot().find("testsuite")
    return suite, {case.get("name"): case for case in suite.iter("testcase")}


def _html_rows(html):
    """pytest-html 4 keeps its rows as JSON in a data attribute and renders them in JavaScript."""
    blob = re.search(r'data-jsonblob="(.*?)"></div>', html, re.S).group(1)
    tests = json.loads(unescape(blob))["tests"]
    return {test_id: runs[0] for test_id, runs in tests.items()}


def _props(case):
    return {p.get("name"): p.get("value") for p in case.iterfind("properties/property")}


@pytest.fixture
def run(inner):
    inner.pytester.makepyfile(test_perf=TESTS)
    return inner


def test_end_to_end(run):
    result = run(*REPORT_ARGS, "-rA")
    result.assert_outcomes(passed=4, failed=3, errors=1, warnings=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at call of test_unparseable*",
            "*MarginalWarning: usb.msc.read[[]bs=1M,case=marginal[]]: marginal on purpose*",
            "*= hil metrics (8) =*",
            "board*metric*median*unit*band*CV*n*verdict*stop",
            "vboard-hs*usb.msc.read[[]bs=1M,case=fail[]]*41.35*MB/s*[[]38, 48[]]*5.5%*8*FAIL*decided",
            "vboard-hs*usb.msc.write[[]bs=1M[]]*–*MB/s*>= 30*–*0*ERROR*error",
            "results: reports/results.json",
            "trend: reports/trend.html",
            "ERROR test_perf.py::test_unparseable - MeasurementErrorOutcome: usb.msc.write*",
            "FAILED test_perf.py::test_read[[]FAIL[]] - Failed: usb.msc.read*",
        ]
    )

    data = _results(run.path)
    assert (data["run"]["finished"] is not None, data["run"]["exit_status"]) == (True, 1)
    assert "--junitxml=reports/junit.xml" in data["run"]["command"]
    verdicts = {(r["test_id"].split("::")[1], r["params"]["bs"]): r["verdict"] for r in data["results"]}
    assert verdicts == {
        ("test_read[PASS]", "1M"): "PASS", ("test_read[MARGINAL]", "1M"): "MARGINAL",
        ("test_read[FAIL]", "1M"): "FAIL", ("test_read[UNSTABLE]", "1M"): "UNSTABLE",
        ("test_read[REGRESSION]", "1M"): "REGRESSION", ("test_unparseable", "1M"): "ERROR",
        ("test_two_metrics", "4k"): "PASS", ("test_two_metrics", "1M"): "PASS",
    }  # fmt: skip
    assert not (run.path / "reports" / "history").exists()  # the database is the history
    assert (run.path / "reports" / "trend.html").read_text().count(
        '<svg class="hil-trend"'
    ) == 7  # 7 keys with a median

    suite, cases = _cases(run.path)
    assert (suite.get("errors"), suite.get("failures"), suite.get("tests")) == ("1", "3", "8")
    error_case = cases["test_unparseable"]
    assert error_case.find("failure") is None
    assert error_case.find("error").get("message").startswith("MeasurementErrorOutcome: usb.msc.write")
    assert _props(error_case)["verdict"] == "ERROR"
    assert cases["test_read[FAIL]"].find("failure") is not None
    assert cases["test_read[FAIL]"].find("error") is None
    props = {k.removeprefix("usb.msc.read[bs=1M,case=pass]."): v for k, v in _props(cases["test_read[PASS]"]).items()}
    assert props["metrics"] == "usb.msc.read[bs=1M,case=pass]"
    assert (props["value"], props["unit"], props["verdict"], props["samples"]) == (
        "41.35",
        "MB/s",
        "PASS",
        "8",
    )
    assert (props["band"], props["stop_reason"], props["link_speed"]) == ("[38, 48]", "decided", "480M")
    two = _props(cases["test_two_metrics"])
    assert two["usb.ecm.tcp[bs=4k].verdict"] == two["usb.ecm.tcp[bs=1M].verdict"] == "PASS"
    assert (two["metrics"], two["verdict"]) == ("usb.ecm.tcp[bs=4k] usb.ecm.tcp[bs=1M]", "PASS")  # the same names
    assert _props(cases["test_without_metrics"]) == {}

    html = (run.path / "reports" / "report.html").read_text()
    assert 'id="hil-summary"' in html  # the summary table, rendered server-side
    assert html.count("data:image/png;base64,") == 7  # one plot per result with samples
    assert '<span class="error">1 Errors' in html
    assert '<span class="failed">3 Failed' in html
    rows = _html_rows(html)
    assert rows["test_perf.py::test_unparseable"]["result"] == "Error"  # drives row colour and filter
    assert rows["test_perf.py::test_read[FAIL]"]["result"] == "Failed"
    assert rows["test_perf.py::test_two_metrics"]["verdict"] == "PASS / PASS"
    assert "No space left on device" in html  # raw output, verbatim


def test_xdist_writes_one_complete_results_file(run):
    result = run(*REPORT_ARGS, "-p", "xdist", "-n", "2", subprocess=True)
    result.assert_outcomes(passed=4, failed=3, errors=1, warnings=1)
    data = _results(run.path)
    assert len(data["results"]) == 8
    assert len({(r["test_id"], r["params"]["bs"]) for r in data["results"]}) == 8
    assert data["run"]["finished"] is not None
    suite, cases = _cases(run.path)
    assert (suite.get("errors"), suite.get("failures")) == ("1", "3")
    assert cases["test_unparseable"].find("error") is not None
    assert (run.path / "reports" / "report.html").read_text().count("data:image/png;base64,") == 7


BASELINE_TESTS = """
from hil.report.collect import attach
from hil.report.outcome import raise_for_verdict
from hil.report.testing import example_result


def test_read(request, hil_baselines):
    if request.config.getoption("baseline"):
        baseline = hil_baselines.load("vboard-hs")
        assert baseline.runs_for("usb.msc.read[bs=1M]") == [[41.0, 42.0, 43.0]]
        assert baseline.runs_for("usb.msc.read[bs=4K]") is None  # a metric the run did not measure: none
    else:
        assert hil_baselines is None
    result = example_result(values=[41.0, 42.0, 43.0])
    attach(request.node, result)
    raise_for_verdict(result)
"""


def test_update_then_compare_baselines(inner):
    inner.pytester.makepyfile(test_base=BASELINE_TESTS)
    result = inner("--update-baseline")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["baseline created: vboard-hs (1 metric(s) from this run, holding 1 run(s): the run-to-run*"]
    )
    inner("--baseline").assert_outcomes(passed=1)


def test_a_run_without_metrics_stays_quiet(inner):
    inner.pytester.makepyfile("def test_plain(): pass")
    result = inner()
    result.assert_outcomes(passed=1)
    assert "hil metrics" not in result.stdout.str()
    data = _results(inner.path)
    assert (data["results"], data["run"]["finished"] is not None) == ([], True)


def test_collect_only_writes_nothing(run):
    run("--collect-only").assert_outcomes()
    assert not (run.path / "reports").exists()


def test_reports_directory_option(run):
    run("--hil-reports", "out/hil", "-k", "PASS").assert_outcomes(passed=1, deselected=7)
    assert len(json.loads((run.path / "out" / "hil" / "results.json").read_text())["results"]) == 1


def test_a_failed_baseline_update_fails_the_run(inner):
    inner.pytester.makepyfile(test_base=BASELINE_TESTS)
    engine = open_db(f"sqlite:///{inner.path / 'reports' / 'hil.db'}")
    with engine.begin() as connection:  # a database that refuses the baselines' rows
        connection.execute(text("CREATE TRIGGER no BEFORE INSERT ON baselines BEGIN SELECT RAISE(ABORT, 'no'); END"))
    engine.dispose()
    result = inner("--update-baseline")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["baselines not updated: IntegrityError: *no*"])
    assert _results(inner.path)["run"]["exit_status"] == 1


SINK = """
import json

def pytest_hil_result(result, config):
    with open("sink.jsonl", "a") as out:
        out.write(json.dumps({"metric": result.metric, "verdict": result.verdict.value,
                              "bs": result.params.get("bs"), "unit": result.unit}) + "\\n")
"""


@pytest.mark.parametrize("workers", [[], ["-p", "xdist", "-n", "2"]], ids=["in-process", "xdist"])
def test_a_result_sink_in_a_conftest_receives_every_finished_metric(run, workers):
    run.pytester.makeconftest(SINK)
    result = run(*REPORT_ARGS, *workers, subprocess=bool(workers))
    result.assert_outcomes(passed=4, failed=3, errors=1, warnings=1)
    received = [json.loads(line) for line in (run.path / "sink.jsonl").read_text().splitlines()]
    data = _results(run.path)
    assert sorted((r["metric"], r["verdict"], r["bs"]) for r in received) == sorted(
        (r["metric"], r["verdict"], r["params"]["bs"]) for r in data["results"]
    )
    assert len(received) == 8  # on the controller only: once per result, not once per worker


def test_a_failing_sink_is_named_and_does_not_lose_the_results(run):
    run.pytester.makeconftest("def pytest_hil_result(result, config):\n    raise ConnectionError('dashboard down')\n")
    result = run(*REPORT_ARGS)
    result.stdout.fnmatch_lines(["*a pytest_hil_result sink failed on vboard-hs usb.msc.read*dashboard down*"])
    assert len(_results(run.path)["results"]) == 8
