"""Merge JUnit files into one: `python scripts/junit_merge.py OUT IN...` (missing inputs are skipped).

`scripts/test.sh` runs hil's own tests in two pytest runs (the unit tests on both cores, then the lab tests in one
process); Jenkins and a reader want one file of the whole run. Every input's `<testsuite>` elements go, unchanged,
under one `<testsuites>`.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def merge(out: Path, inputs: list[Path]) -> int:
    """Write OUT with every testsuite of INPUTS; return how many testcases it holds."""
    root = ET.Element("testsuites", name="pytest tests")
    for path in inputs:
        if not path.is_file():
            print(f"junit_merge: {path} is missing (that run did not start): left out", file=sys.stderr)
            continue
        tree = ET.parse(path).getroot()
        suites = [tree] if tree.tag == "testsuite" else list(tree.iter("testsuite"))
        root.extend(suites)
    out.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(out, encoding="utf-8", xml_declaration=True)
    return sum(1 for _ in root.iter("testcase"))


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    count = merge(Path(argv[0]), [Path(a) for a in argv[1:]])
    print(f"junit_merge: {count} testcases in {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
