"""The generated pages of the documentation site are their generators' output: docs/catalogue.md's tables are
`python -m hil.catalogue`'s, docs/boards-yaml.md's reference is `python -m hil.inventory.reference`'s.
Adding a metric, a setting or a boards.yaml key updates both."""

import re
from pathlib import Path

import pytest

from hil.catalogue.__main__ import markdown as catalogue
from hil.inventory.reference import markdown as reference

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.parametrize(
    ("page", "marker", "generate", "command"),
    [
        ("catalogue.md", "catalogue", catalogue, "python -m hil.catalogue"),
        ("boards-yaml.md", "reference", reference, "python -m hil.inventory.reference"),
    ],
)
def test_generated_pages_are_their_generators_output(page, marker, generate, command):
    text = (DOCS / page).read_text(encoding="utf-8")
    found = re.search(rf"<!-- {marker}: .*? -->\n(.*?)<!-- /{marker} -->", text, re.S)
    assert found, f"docs/{page} has no generated {marker} section"
    assert found.group(1) == generate(), f"docs/{page} is stale: paste `{command}` between the markers"


def test_the_reference_names_every_key_of_a_pair_and_what_it_means():
    text = reference()
    for key in ("env", "link", "roles", "settings", "metrics", "tuning", "matrix"):
        assert f"| `{key}` |" in text
    assert "| `max_payload` | integer" in text and "Max Payload Size" in text
