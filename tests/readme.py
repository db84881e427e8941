"""The commands README and the documentation site (docs/) show, for tests that run them: extracted from the
files, so what the pages show is what is tested."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"


def pages() -> list[Path]:
    """README and every page of the documentation site."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def section(heading: str) -> str:
    """The text of the `## heading` section of README or a docs page, up to the next heading of that level."""
    for page in pages():
        text = page.read_text(encoding="utf-8")
        found = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
        if found:
            return found.group(1)
    raise AssertionError(f"neither README nor docs/ has a section {heading!r}")


def commands_after(marker: str, heading: str) -> list[list[str]]:
    """The commands of the first ```sh block after `marker` in a section, split as a shell would."""
    text = section(heading)
    assert marker in text, f"README's {heading!r} section no longer says {marker!r}"
    block = re.search(r"```sh\n(.*?)```", text[text.index(marker) :], re.S)
    assert block, f"no ```sh block after {marker!r}"
    return [shlex.split(line, comments=True) for line in block.group(1).splitlines() if line.strip()]


def table(heading: str, first_column: str) -> dict[str, list[str]]:
    """A Markdown table of a section, by the first column's value (backquotes dropped)."""
    text = section(heading)
    start = text.index(f"| {first_column} |")
    rows = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip().strip("`") for cell in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows
