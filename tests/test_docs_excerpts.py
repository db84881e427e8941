"""Every code excerpt README and the documentation site show from a file of the repository is that file's text.

The convention: an HTML comment on the line before the fence names the file, and optionally its lines,
    <!-- excerpt: testcases/usb_device/test_msc.py lines 18-41 -->
    ```python
    ...
    ```
and the block must equal the whole file, or those lines of it, character for character. A page that says it
shows a file (a path in backquotes before a ```python block) without the comment fails too, so a new excerpt
cannot skip the check. MkDocs renders the comment as nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.readme import REPO, pages

_EXCERPT = re.compile(
    r"^<!-- excerpt: (?P<path>\S+)(?: lines (?P<first>\d+)-(?P<last>\d+))? -->\n```[a-z]*\n(?P<body>.*?)^```$",
    re.S | re.M,
)
# A python block right after a sentence that names a file: an excerpt in all but the comment.
_UNMARKED = re.compile(r"`(?P<path>[\w/.-]+\.py)`[^\n`]*:\n\n```python\n", re.M)


@dataclass(frozen=True)
class Excerpt:
    page: str
    path: str
    lines: tuple[int, int] | None
    body: str

    def __str__(self) -> str:
        where = f" lines {self.lines[0]}-{self.lines[1]}" if self.lines else ""
        return f"{self.page}: {self.path}{where}"


def excerpts(page: Path) -> list[Excerpt]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in _EXCERPT.finditer(text):
        lines = (int(match["first"]), int(match["last"])) if match["first"] else None
        found.append(Excerpt(page.relative_to(REPO).as_posix(), match["path"], lines, match["body"]))
    return found


def mismatch(excerpt: Excerpt) -> str | None:
    """What is wrong with an excerpt, or None; where its text moved in the file, the lines it is at now."""
    source = REPO / excerpt.path
    if not source.is_file():
        return f"{excerpt}: no file {excerpt.path}"
    file_lines = source.read_text(encoding="utf-8").splitlines()
    shown = excerpt.body.splitlines()
    first, last = excerpt.lines or (1, len(file_lines))
    if not 1 <= first <= last <= len(file_lines):
        return f"{excerpt}: {excerpt.path} has {len(file_lines)} lines"
    if file_lines[first - 1 : last] == shown:
        return None
    for start in range(len(file_lines) - len(shown) + 1):
        if file_lines[start : start + len(shown)] == shown:
            return f"{excerpt}: the text is now at lines {start + 1}-{start + len(shown)}"
    return f"{excerpt}: the block is not the file's text (copy lines {first}-{last} of {excerpt.path} again)"


ALL = [excerpt for page in pages() for excerpt in excerpts(page)]


def test_the_pages_have_excerpts():
    assert len(ALL) >= 2, "the excerpt convention matched nothing: the pattern or the pages changed"


@pytest.mark.parametrize("excerpt", ALL, ids=str)
def test_excerpt_equals_its_file(excerpt):
    problem = mismatch(excerpt)
    assert problem is None, problem


@pytest.mark.parametrize("page", pages(), ids=lambda page: page.relative_to(REPO).as_posix())
def test_a_block_that_names_a_file_is_an_excerpt(page):
    text = page.read_text(encoding="utf-8")
    unmarked = [match["path"] for match in _UNMARKED.finditer(text)]
    assert not unmarked, f"{page.name}: a block shown as {unmarked} needs an <!-- excerpt: PATH --> comment"


def test_a_changed_file_fails_its_excerpt():
    shown = ALL[0]
    edited = Excerpt(shown.page, shown.path, shown.lines, shown.body.replace("\n", "\n# edited\n", 1))
    assert mismatch(edited) is not None
    assert mismatch(shown) is None
