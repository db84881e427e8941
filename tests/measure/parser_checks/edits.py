"""Edits and readers the per-tool parser checks share: JSON documents, last-line rewrites, two runs joined."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hil.measure.parsing import without_kernel_messages

# An invalidation: a valid output and what was asked -> an output (and request) no figure may come from.
Edit = Callable[[str, dict[str, Any]], tuple[str, dict[str, Any]]]
# A fuzz oracle: the output, what was asked and what the parser returned; it asserts they agree, reading the
# figures from the text by other means than the parser's.
Oracle = Callable[[str, dict[str, Any], Any], None]


@dataclass(frozen=True)
class Base:
    """A valid output an invalidation starts from: a real capture, or a line rendered from a driver's printf."""

    name: str
    text: str
    asked: dict[str, Any]


def clean_lines(text: str) -> list[str]:
    return without_kernel_messages(text).splitlines()


def json_document(text: str) -> dict[str, Any]:
    """The JSON object a tool printed, found by scanning from each line that starts with '{'."""
    clean = without_kernel_messages(text)
    start = next(i for i, line in enumerate(clean.splitlines(keepends=True)) if line.startswith("{"))
    return json.loads("".join(clean.splitlines(keepends=True)[start:]))


def json_edit(change: Callable[[dict[str, Any]], None]) -> Edit:
    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        start = text.index("{")
        document = json.loads(text[start:])
        change(document)
        if document == json.loads(text[start:]):
            return text, asked  # nothing to edit in this base: not an invalid input
        return text[:start] + json.dumps(document, indent=2), asked

    return edit


def scale(path: tuple[str, ...], factor: float, *, integer: bool = False) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        node = document
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = (round if integer else float)(node[path[-1]] * factor)

    return change


def two_runs(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return text.rstrip("\n") + "\n" + text, asked


def on_last_line(pattern: str, replace: Callable[[re.Match[str]], str], *, line_from_end: int = 1) -> Edit:
    """Replace `pattern` in the last but (line_from_end - 1) non-empty line."""

    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        lines = text.split("\n")
        index = [i for i, line in enumerate(lines) if line.strip()][-line_from_end]
        lines[index] = re.sub(pattern, replace, lines[index], count=1)
        return "\n".join(lines), asked

    return edit


def insert_before_last(line: str) -> Edit:
    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        lines = text.rstrip("\n").split("\n")
        return "\n".join([*lines[:-1], line, lines[-1]]) + "\n", asked

    return edit


def cut_last_line(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return text.rstrip("\n")[:-3], asked


def field(name: str, value: Callable[[int], object], *, line_from_end: int = 1) -> Edit:
    """`name=N` on the last line (or one before it) set to value(N)."""
    return on_last_line(rf"\b{name}=([0-9]+)", lambda m: f"{name}={value(int(m[1]))}", line_from_end=line_from_end)


def rate_doubled(name: str) -> Edit:
    return on_last_line(rf"\b{name}=([0-9.]+)", lambda m: f"{name}={float(m[1]) * 2:.3f}")


def earlier_whole_last_garbled(marker: str, garble: Callable[[str], str]) -> Edit:
    """The last line holding `marker` garbled by `garble`, after a whole copy of it: a parser that skips a
    damaged last line would take the copy, a figure the tool did not end with."""

    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        lines = text.split("\n")
        index = [i for i, line in enumerate(lines) if marker in line][-1]
        lines[index : index + 1] = [lines[index], garble(lines[index])]
        return "\n".join(lines), asked

    return edit


def carriage_return(line: str) -> str:
    """A line whose end a carriage return overwrote: the cursor went back, what follows is not this line's."""
    return line[: len(line) // 2] + "\r" + line[len(line) // 2 :]


def ends_in_cr(marker: str) -> Edit:
    """The output ends in the last line holding `marker` and a carriage return (not a serial console's CR LF:
    the cursor went back and the output stopped), after a whole copy of that line."""

    def edit(text: str, asked: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        lines = text.split("\n")
        index = [i for i, line in enumerate(lines) if marker in line][-1]
        return "\n".join([*lines[: index + 1], lines[index] + "\r"]), asked

    return edit
