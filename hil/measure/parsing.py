"""Rules and helpers every parser of tool output follows, and the registry the fuzz harness reads.

Tool output is hostile until parsed:
- only `ParseError` (with the raw text) ever leaves a parser, whatever the input;
- the last complete summary counts (progress lines and earlier summaries come first);
- numbers are ASCII digits only (`int("٣")` is 3 in Python, and no tool prints that);
- what the tool says it did is checked against what it was asked to do (bytes, frames, seconds);
- kernel messages a board printed into the middle of the output are not output (`output_lines`);
- a figure agrees with the rest of the output and with physics (`span`, `under_ceiling`, `covers_asked`,
  `lines_holding`, `no_failure`).

A parser is registered with `@parser("<tests/data folder>", asked=...)`: tests/measure/test_parser_fuzz.py
feeds it mutated inputs seeded from the real captures in that folder and checks that each one either raises
ParseError or returns a value its oracle confirms from the text.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from hil.lab.board.console import KERNEL_TIMESTAMP, without_kernel_messages
from hil.verdict.errors import MeasurementError, ParseError

if TYPE_CHECKING:
    from hil.lab.board.role import Role

F = TypeVar("F", bound=Callable[..., Any])
_INT = re.compile(r"[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?", re.ASCII)
MAX_DIGITS = 30  # no tool counts beyond 10^30 of anything; a longer number is garbage, not data
ASKED_SLACK_S = 0.5  # a report's interval may end a little after the one asked (its last packets, rounding)


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
    """Register a parser `func(text: str, **asked(command)) -> result` with the fuzz harness."""

    def register(func: F) -> F:
        name = f"{func.__module__}.{func.__qualname__}"
        PARSERS[name] = RegisteredParser(name, func, data, asked)
        return func

    return register


def output_lines(text: str, what: str) -> list[str]:
    """A tool's output as lines, kernel console lines removed; a printk cutting into a line is a ParseError
    (that line can no longer be trusted). A CR ends a line too (dd's progress lines, a serial console)."""
    clean = without_kernel_messages(text.replace("\r\n", "\n").replace("\r", "\n"))
    stray = KERNEL_TIMESTAMP.search(clean)
    if stray is not None:
        line = clean[clean.rfind("\n", 0, stray.start()) + 1 :].partition("\n")[0]
        raise ParseError(f"{what}: a kernel message cuts into a line of its output: {line[:200]!r}", raw_output=text)
    return clean.split("\n")


def run_timed(
    role: Role, command: str, what: str, *, timeout: float, error: type[MeasurementError] = ParseError
) -> tuple[str, float, float]:
    """Run `command` on `role`: its output, when it started and its seconds; `error` if it exited non-zero."""
    started = time.time()
    exitcode, output = role.run_status(command, timeout=timeout)
    duration = time.time() - started
    if exitcode != 0:
        raise error(f"{what} exited {exitcode}", raw_output=output)
    return output, started, duration


def one_of(value: object, choices: tuple[object, ...], what: str) -> None:
    """A ValueError naming `what` unless `value` is one of `choices` (a caller's mistake, not the tool's)."""
    if value not in choices:
        raise ValueError(f"{what} must be one of {choices}, got {value!r}")


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
    """The one JSON object a tool printed (`fio --output-format=json`, `iperf3 -J`), or ParseError: anything
    before the first '{' starting a line (a warning) is ignored; the object must be the last thing printed."""
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


def lines_holding(text: str, marker: str, pattern: re.Pattern[str], what: str) -> list[re.Match[str]]:
    """Every line holding `marker`, each matched whole by `pattern`, in order (the last is the figure's). None,
    or one that does not match (a CR left in it too), is a ParseError: a damaged last line never hands over to
    the one before it."""
    found = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if marker not in line.replace("\r", ""):  # a CR inside the marker hides it no better
            continue
        m = pattern.fullmatch(line)
        if m is None:
            raise ParseError(f"{what}: a garbled line: {line[-200:]!r}", raw_output=text)
        found.append(m)
    if not found:
        raise ParseError(f"{what}: no line holding {marker!r}", raw_output=text)
    return found


def no_failure(text: str, failure: re.Pattern[str], what: str) -> None:
    """A ParseError if any line says the run failed: a figure printed after a failure is not a measurement."""
    for line in text.replace("\r", "\n").split("\n"):
        if failure.search(line):
            raise ParseError(f"{what} reported a failure: {line.strip()[-200:]!r}", raw_output=text)


def span(start: int, end: int, *, resolution: int, what: str, raw: str) -> int:
    """end - start of a clock counting in units of `resolution`; a ParseError unless it exceeds that
    resolution (one tick or none is no duration a clock can tell from zero)."""
    if end - start <= resolution:
        raise ParseError(f"{what}: {end - start} is not beyond the clock's resolution of {resolution}", raw)
    return end - start


def under_ceiling(bytes_: float, seconds: float, ceiling_bytes_per_s: float, what: str, raw: str) -> None:
    """A ParseError if `bytes_` in `seconds` is faster than the fastest link it could have crossed."""
    if bytes_ > ceiling_bytes_per_s * seconds:
        raise ParseError(
            f"{what}: {bytes_:g} bytes in {seconds:g} s is beyond the link's {ceiling_bytes_per_s:g} B/s", raw
        )


def covers_asked(seconds: float, asked_s: float, what: str, raw: str, *, least: float = 0.9) -> None:
    """A report's interval against the run asked: at least `least` of it, and not longer than it."""
    if not least * asked_s <= seconds <= asked_s * 1.05 + ASKED_SLACK_S:
        raise ParseError(f"{what}: a report of {seconds:g} s for a run of {asked_s:g} s asked", raw)
