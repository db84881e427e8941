"""README's catalogue tables are `python -m hil.catalogue`'s output: adding a metric updates both."""

import re
from pathlib import Path

from hil.catalogue.__main__ import markdown

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_lists_exactly_the_catalogue():
    text = README.read_text(encoding="utf-8")
    found = re.search(r"<!-- catalogue: .*? -->\n(.*?)<!-- /catalogue -->", text, re.S)
    assert found, "README has no generated catalogue section"
    assert found.group(1) == markdown(), "README is stale: paste `python -m hil.catalogue` between the markers"
