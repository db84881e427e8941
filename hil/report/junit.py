"""Re-label measurement errors in pytest's JUnit XML: `<failure>` becomes `<error>`.

pytest's junitxml decides failure versus error on the phase alone (`report.when == "call"` gives
`<failure>`, setup/teardown give `<error>`), and offers no hook to decide otherwise. A measurement
error happens in the call phase, so the plugin marks its testcase with a `measurement_error`
property and, once junitxml has written the file, this module renames the element and moves the
count from `failures` to `errors` on the enclosing suite. Only the written file is touched, never
junitxml's internals. Plain module: no pytest.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

from hil.records.files import atomic_write_bytes

MEASUREMENT_ERROR_PROPERTY = "measurement_error"


def _is_measurement_error(case: ET.Element) -> bool:
    return any(prop.get("name") == MEASUREMENT_ERROR_PROPERTY for prop in case.iterfind("properties/property"))


def mark_measurement_errors(path: Path) -> int:
    """Rewrite `path` in place (atomically); returns how many failures became errors."""
    tree = ET.parse(path)
    moved_total = 0
    for suite in tree.getroot().iter("testsuite"):
        moved = 0
        for case in suite.iterfind("testcase"):
            if not _is_measurement_error(case):
                continue
            for element in case.iterfind("failure"):
                element.tag = "error"  # message and text (the reason, the longrepr) stay as written
                moved += 1
        if moved:
            suite.set("failures", str(int(suite.get("failures", "0")) - moved))
            suite.set("errors", str(int(suite.get("errors", "0")) + moved))
            moved_total += moved
    if moved_total:
        buffer = io.BytesIO()
        tree.write(buffer, encoding="utf-8", xml_declaration=True)
        atomic_write_bytes(path, buffer.getvalue())
    return moved_total
