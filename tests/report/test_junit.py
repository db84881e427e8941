import xml.etree.ElementTree as ET

from hil.report.junit import mark_measurement_errors

XML = """<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest"
 errors="0" failures="2" skipped="0" tests="3"><testcase classname="t" name="a"><properties>
<property name="verdict" value="ERROR"/><property name="measurement_error" value="x: above ceiling"/>
</properties><failure message="MeasurementErrorOutcome: x: above ceiling">trace</failure></testcase>
<testcase classname="t" name="b"><properties><property name="verdict" value="FAIL"/></properties>
<failure message="Failed: low">trace</failure></testcase><testcase classname="t" name="c"/>
</testsuite></testsuites>"""


def test_failure_of_a_measurement_error_becomes_an_error(tmp_path):
    path = tmp_path / "junit.xml"
    path.write_text(XML)
    assert mark_measurement_errors(path) == 1
    suite = ET.parse(path).getroot().find("testsuite")
    assert (suite.get("errors"), suite.get("failures")) == ("1", "1")
    a, b, _ = suite.findall("testcase")
    assert a.find("failure") is None
    assert a.find("error").get("message") == "MeasurementErrorOutcome: x: above ceiling"
    assert a.find("error").text == "trace"
    assert b.find("failure") is not None


def test_nothing_to_mark_leaves_the_file_alone(tmp_path):
    path = tmp_path / "junit.xml"
    path.write_text(XML.replace('name="measurement_error"', 'name="other"'))
    before = path.stat().st_mtime_ns
    assert mark_measurement_errors(path) == 0
    assert path.stat().st_mtime_ns == before
