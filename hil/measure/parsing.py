"""Rules and helpers every parser of tool output follows, and the registry the fuzz harness reads.

Tool output is hostile until parsed:
- only `ParseError` (with the raw text) ever leaves a parser, whatever the input;
- the last complete summary counts (progress lines and earlier summaries come first);
- numbers are ASCII digits only (`int("٣")` is 3 in Python, and no tool prints that);
- what the tool says it did is checked against what it was asked to do (bytes, frames, seconds);
- kernel messages that a board printed on its console into the middle of the output are not output.

Parsers read a tool's output through `output_lines` (kernel lines removed, a printk cutting into a line
detected) and its numbers through `ascii_int` / `ascii_float` / `number_at`.

A parser is registered with `@parser("<tests/data folder>", asked=...)`: tests/measure/test_parser_fuzz.py
feeds every registered parser mutated inputs (seeded from the real captures in that folder, each
checked against what its recorded command asked for) and checks that each one either raises ParseError
or returns a value its oracle confirms from the text.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from hil.lab.board.console import KERNEL_TIMESTAMP, without_kernel_messages
from hil.verdict.errors import ParseError

F = TypeVar("F", bound=Callable[..., Any])


# What a capture's command asked the tool to do, as the parser's keyword arguments: dd's parser checks
# the bytes copied against bs*count, so the harness derives them from the command in NAME.source.
Asked = Callable[[str], dict[str, Any]]


@dataclass(frozen=True)
class RegisteredParser:
    name: str  # module.function
    func: Callable[..., Any]
    data: str | None  # folder under tests/data with real outputs of the tool (the fuzzer's seeds)
    asked: Asked | None = None  # command line of a capture -> keyword arguments of `func`


PARSERS: dict[str, RegisteredParser] = {}


def parser(data: str | None = None, *, asked: Asked | None = None) -> Callable[[F], F]:
    """Register a parser `func(text: str, **asked(command)) -> result` with the fuzz harness.

    `data` names its captures; `asked` turns a capture's command into what the parser checks the
    output against (omit it for a parser that takes the text only).
    """

    def register(func: F) -> F:
        name = f"{func.__module__}.{func.__qualname__}"
        PARSERS[name] = RegisteredParser(name, func, data, asked)
        return func

    return register


def output_lines(text: str, what: str) -> list[str]:
    """A tool's output as lines, kernel console lines removed; a printk cutting into a line is a ParseError.

    A carriage return ends a line too (dd's progress lines end in CR, a serial console adds CR before LF).
    A kernel message that starts in the middle of a line splits the tool's line in two, so that line can
    no longer be trusted: detected, never parsed around.
    """
    clean = without_kernel_messages(text.replace("\r\n", "\n").replace("\r", "\n"))
    stray = KERNEL_TIMESTAMP.search(clean)
    if stray is not None:
        line = clean[clean.rfind("\n", 0, stray.start()) + 1 :].partition("\n")[0]
        raise ParseError(f"{what}: a kernel message cuts into a line of its output: {line[:200]!r}", raw_output=text)
    return clean.split("\n")


_INT = re.compile(r"[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?", re.ASCII)
MAX_DIGITS = 30  # no tool counts beyond 10^30 of anything; a longer number is garbage, not data


def ascii_int(text: str, what: str, raw: str) -> int:
    """A non-negative integer of ASCII digits, or ParseError naming `what`."""
    if not isinstance(text, str) or _INT.fullmatch(text) is None or len(text) > MAX_DIGITS:
        raise ParseError(f"{what}: {text!r} is not a number", raw_output=raw)
    return int(text)


def ascii_float(text: str, what: str, raw: str) -> float:
    """A finite non-negative decimal of ASCII digits (optionally with an exponent), or ParseError."""
    if not isinstance(text, str) or _FLOAT.fullmatch(text) is None or len(text) > MAX_DIGITS + 10:
        raise ParseError(f"{what}: {text!r} is not a number", raw_output=raw)
    value = float(text)
    if not math.isfinite(value):
        raise ParseError(f"{what}: {text!r} is not a finite number", raw_output=raw)
    return value


def json_object(text: str, what: str) -> dict[str, Any]:
    """The one JSON object a tool printed (`fio --output-format=json`, `iperf3 -J`), or ParseError.

    Anything before the first '{' at the start of a line (a warning, a kernel message) is ignored; the
    object must then parse completely and be the last thing printed.
    """
    clean = without_kernel_messages(text)
    start = re.search(r"^\{", clean, re.MULTILINE)
    if start is None:
        raise ParseError(f"{what} printed no JSON object", raw_output=text)
    try:
        document, end = json.JSONDecoder(parse_constant=_reject_constant).raw_decode(clean, start.start())
    except (ValueError, RecursionError) as exc:
        raise ParseError(f"{what} printed malformed JSON: {exc}", raw_output=text) from None
    if clean[end:].strip():
        raise ParseError(f"{what} printed more after its JSON object: {clean[end:].strip()[:200]!r}", raw_output=text)
    if not isinstance(document, dict):
        raise ParseError(f"{what} printed JSON that is not an object", raw_output=text)
    return document


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number a tool measures")


def number_at(document: Any, path: str, what: str, raw: str) -> float:
    """document["a"]["b"][0]... given as "a/b/0": a finite JSON number (not a bool), or ParseError."""
    node = document
    for part in path.split("/"):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise ParseError(f"{what}: no {path!r} in the output", raw_output=raw)
    if isinstance(node, bool) or not isinstance(node, int | float):
        raise ParseError(f"{what}: {path!r} is {str(node)[:80]!r}, not a number", raw_output=raw)
    try:
        value = float(node)  # a JSON integer of hundreds of digits does not fit a float
    except OverflowError:
        raise ParseError(f"{what}: {path!r} is a {len(str(node))}-digit number", raw_output=raw) from None
    if not math.isfinite(value):
        raise ParseError(f"{what}: {path!r} is {node!r}, not a finite number", raw_output=raw)
    return value
