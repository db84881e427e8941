"""Re-label measurement errors in pytest's JUnit XML: `<failure>` becomes `<error>`.

junitxml decides failure or error on the phase alone, with no hook to decide otherwise, and a measurement error
happens in the call phase. So the plugin marks its testcase with a `measurement_error` property and, once the
file is written, this module renames the element and moves the suite's count. Plain module: no pytest.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from hil.records.files import atomic_write_bytes

MEASUREMENT_ERROR_PROPERTY = "measurement_error"


def _is_measurement_error(case: ET.Element) -> bool:
    return any(prop.get("name") == MEASUREMENT_ERROR_PROPERTY for prop in case.iterfind("properties/property"))


def mark_measurement_errors(path: Path) -> int:
    """Rewrite `path` in place (atomically); returns how many failures became errors."""
    tree = ET.parse(path)
    moved = 0
    for suite in tree.getroot().iter("testsuite"):
        cases = [case for case in suite.iterfind("testcase") if _is_measurement_error(case)]
        failures = [element for case in cases for element in case.iterfind("failure")]
        for element in failures:
            element.tag = "error"  # message and text (the reason, the longrepr) stay as written
        if failures:
            suite.set("failures", str(int(suite.get("failures", "0")) - len(failures)))
            suite.set("errors", str(int(suite.get("errors", "0")) + len(failures)))
            moved += len(failures)
    if moved:
        atomic_write_bytes(path, ET.tostring(tree.getroot(), encoding="utf-8", xml_declaration=True))
    return moved
