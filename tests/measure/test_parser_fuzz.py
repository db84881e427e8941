"""Every parser registered with hil.measure.parsing.parser, fed mutations of its real captures.

A parser is fuzzed here by being registered (`@parser("<tests/data folder>", asked=...)`) in any module
under hil/measure: the modules are imported below and the registry is read at collection. Each parser
gets MAX_INPUTS inputs, each a real capture (tests/data/<folder>/NAME.txt, asked what its NAME.source
command asked) with one to four mutations: truncation, digit swaps, Unicode digits, kernel console
lines, duplicated, dropped or swapped lines, huge or malformed numbers, random text and bytes. Checked:
- only MeasurementError leaves the parser, carrying the input verbatim;
- a returned value holds finite numbers only and passes the parser's oracle (tests/measure/parser_checks/
  <tool>.py), which reads the figures from the text by other means than the parser (none fails a test);
- kernel lines inserted between lines change nothing; a Unicode digit in place of an ASCII one never
  gives a different value.

Profiles: "parsers-full" (the default: MAX_INPUTS inputs per parser, what CI runs) and
"parsers-quick" (HIL_PARSER_FUZZ=quick, 500, for editing a parser). Each of hypothesis's examples is a seed, its
mutation kinds and INPUTS_PER_EXAMPLE places and payloads: hypothesis's own work per example is ten times the
parse's, and a failure still shrinks to its seed and kinds.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import os
import pkgutil
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from parser_checks import collect

import hil.measure
from hil.measure.parsing import PARSERS, RegisteredParser
from hil.verdict.errors import MeasurementError
from hil.verdict.measurement import Measurement

for module in pkgutil.walk_packages(hil.measure.__path__, "hil.measure."):
    importlib.import_module(module.name)

DATA = Path(__file__).resolve().parents[1] / "data"
MAX_INPUTS = 10_000
INPUTS_PER_EXAMPLE = 10
_COMMON = {
    "database": None,  # no example files in the tree; a failure prints its reproduction blob
    "derandomize": True,  # the same inputs on every run: CI is reproducible
    "print_blob": True,
    "deadline": timedelta(seconds=1),  # one parse takes about a millisecond: a second is a regex blowing up
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
settings.register_profile("parsers-full", max_examples=MAX_INPUTS // INPUTS_PER_EXAMPLE, **_COMMON)
settings.register_profile("parsers-quick", max_examples=500 // INPUTS_PER_EXAMPLE, **_COMMON)
PROFILE = settings.get_profile(f"parsers-{os.environ.get('HIL_PARSER_FUZZ', 'full')}")


# Each parser's oracle lives beside its tool (tests/measure/parser_checks/<tool>.py): it reads the figures from
# the text without the parser's regexes.
CHECKS = collect()


# -- seeds and mutations --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Seed:
    name: str
    text: str
    asked: dict[str, Any]


def _seeds(registered: RegisteredParser) -> list[Seed]:
    seeds = []
    for path in sorted((DATA / str(registered.data)).glob("*.txt")):
        source = dict(line.split(": ", 1) for line in path.with_suffix(".source").read_text().splitlines())
        asked = registered.asked(source["command"]) if registered.asked else {}
        seeds.append(Seed(path.stem, path.read_bytes().decode(), asked))  # bytes: keep CR as captured
    return seeds


ASCII_DIGITS = "0123456789"
# Digits of other scripts that str.isdigit() and int() accept: Arabic-Indic, Devanagari, fullwidth, Bengali.
UNICODE_DIGITS = ["٠١٢٣٤٥٦٧٨٩", "०१२३४५६७८९", "０１２３４５６７８９", "০১২৩৪৫৬৭৮৯"]
KERNEL_MESSAGES = [
    "usb 1-1: new high-speed USB device number 2 using xhci_hcd",
    "sd 0:0:0:0: [sda] 262144 512-byte logical blocks: (134 MB/128 MiB)",
    "dwc2 ff580000.usb: new device is high-speed",
    "random: crng init done",
]


KINDS = [
    "truncate", "digit", "unicode-digit", "kernel-line", "kernel-mid-line", "duplicate-line", "drop-line",
    "swap-lines", "huge-number", "bad-number", "insert-text", "insert-bytes",
]  # fmt: skip
BAD_NUMBERS = ["1.2.3", ".", "..", "1e", "e5", "1e999", "nan", "inf", "-1", "0", "+", "0x10", "1_000", "²"]


def _kernel_line(rng: random.Random) -> str:
    level = rng.choice(["", "<6>", "<3>"])
    message = rng.choice(KERNEL_MESSAGES) if rng.random() < 0.7 else _noise(rng).replace("\n", " ").replace("\r", " ")
    return f"{level}[{rng.randrange(100000):5d}.{rng.randrange(1000000):06d}] {message}\n"


def _noise(rng: random.Random) -> str:
    """Random text: raw bytes decoded as a console might, or code points from anywhere in Unicode."""
    if rng.random() < 0.5:
        raw = rng.randbytes(rng.randrange(65))
        return raw.decode(rng.choice(["latin-1", "utf-8"]), errors="replace")
    return "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x110000)])) for _ in range(rng.randrange(65)))


def _mutate(kind: str, text: str, rng: random.Random) -> str:
    """`text` with one mutation of `kind` at random places (no-op when the text has no place for it)."""
    at = rng.randrange(len(text) + 1)  # drawn for every kind: the same seed gives the same inputs
    if kind == "truncate":
        return text[:at]
    # The digits' and lines' places only for the kinds that use them: finding them is most of a mutation's time.
    if kind in ("digit", "unicode-digit", "huge-number", "bad-number") and (
        digits := [i for i, c in enumerate(text) if c in ASCII_DIGITS]
    ):
        i = rng.choice(digits)
        if kind == "digit":
            new = rng.choice(ASCII_DIGITS.replace(text[i], ""))
        elif kind == "unicode-digit":  # of another value, so a parser that accepts it gives another number
            new = rng.choice(UNICODE_DIGITS)[(int(text[i]) + rng.randrange(1, 10)) % 10]
        elif kind == "huge-number":
            new = text[i] + "9" * rng.randrange(20, 400)
        else:
            new = rng.choice(BAD_NUMBERS)
        return text[:i] + new + text[i + 1 :]
    if kind == "kernel-line":  # at a line start: the console printed it between two lines of the tool
        at = rng.choice([0] + [i + 1 for i, c in enumerate(text) if c in "\r\n"])
        return text[:at] + _kernel_line(rng) + text[at:]
    if kind == "kernel-mid-line":
        return text[:at] + _kernel_line(rng) + text[at:]
    if kind in ("duplicate-line", "drop-line", "swap-lines") and (lines := text.splitlines(keepends=True)):
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        if kind == "duplicate-line":
            lines.insert(j, lines[i])
        elif kind == "drop-line":
            del lines[i]
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return "".join(lines)
    if kind in ("insert-text", "insert-bytes"):
        return text[:at] + _noise(rng) + text[at:]
    return text


def _inputs(seeds: list[Seed]) -> st.SearchStrategy[tuple[Seed, list[str], list[str]]]:
    """A seed and one to four mutation kinds drawn by hypothesis (so a failure shrinks to few kinds), and
    INPUTS_PER_EXAMPLE texts made with them: places and payloads from a seeded random generator (drawing each
    through hypothesis costs ~10x)."""

    def build(seed: Seed, kinds: list[str], state: int) -> tuple[Seed, list[str], list[str]]:
        rng, texts = random.Random(state), []
        for _ in range(INPUTS_PER_EXAMPLE):
            text = seed.text
            for kind in kinds:
                text = _mutate(kind, text, rng)
            texts.append(text)
        return seed, kinds, texts

    return st.builds(
        build, st.sampled_from(seeds), st.lists(st.sampled_from(KINDS), min_size=1, max_size=4), st.integers(0, 2**64)
    )


# -- the harness ----------------------------------------------------------------------------------


def _outcome(registered: RegisteredParser, text: str, asked: dict[str, Any]) -> tuple[str, Any]:
    """("value", result) or ("error", None); any other exception fails the test with its traceback.

    A Measurement is compared by its figures and details: its `raw` is the input, whatever it was."""
    try:
        value = registered.func(text, **asked)
        if isinstance(value, Measurement):  # figures and numeric details; strings are echoed options
            numbers = {k: v for k, v in value.details.items() if isinstance(v, int | float)}
            if value.bytes_received is not None:
                numbers["bytes_received"] = value.bytes_received
            return "value", (dict(value.values), numbers)
        return "value", value
    except MeasurementError as exc:
        assert exc.raw_output == text, "a parse error keeps the tool's output verbatim"
        return "error", None


def _numbers(value: Any) -> list[float]:
    """Every number inside a parser's result (dataclass fields, mappings, sequences)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers(item)]
    if isinstance(value, list | tuple):
        return [n for item in value for n in _numbers(item)]
    return []


def _registered() -> list[RegisteredParser]:
    return sorted(PARSERS.values(), key=lambda registered: registered.name)


def test_the_registry_holds_the_known_parsers():
    # The harness below is parametrised on the registry: an empty one would pass by testing nothing.
    assert "hil.measure.dd.parse" in PARSERS


@pytest.mark.parametrize("registered", _registered(), ids=lambda registered: registered.name)
def test_every_parser_has_real_captures_and_an_oracle(registered):
    if registered.name in CHECKS.no_real_capture:
        pytest.skip(CHECKS.no_real_capture[registered.name])
    seeds = _seeds(registered)
    assert len(seeds) >= 3, f"{registered.name}: tests/data/{registered.data} needs real captures"
    assert any(_outcome(registered, seed.text, seed.asked)[0] == "value" for seed in seeds), "a valid capture"
    assert any(_outcome(registered, seed.text, seed.asked)[0] == "error" for seed in seeds), "a failed run"
    assert registered.name in CHECKS.oracles, f"add an oracle for {registered.name} to parser_checks/<tool>.py"


@pytest.mark.parametrize("registered", _registered(), ids=lambda registered: registered.name)
def test_mutated_real_output_gives_a_consistent_value_or_a_parse_error(registered):
    seeds = _seeds(registered)
    expected = {seed.name: _outcome(registered, seed.text, seed.asked) for seed in seeds}
    oracle = CHECKS.oracles.get(registered.name)
    tried: list[int] = []
    values: list[int] = []

    @PROFILE
    @given(case=_inputs(seeds))
    def fuzz(case: tuple[Seed, list[str], list[str]]) -> None:
        seed, kinds, texts = case
        for text in texts:
            tried.append(1)
            outcome = _outcome(registered, text, seed.asked)
            if set(kinds) == {"kernel-line"}:
                assert outcome == expected[seed.name], "kernel lines between the tool's lines change nothing"
            if set(kinds) == {"unicode-digit"}:
                assert outcome in (expected[seed.name], ("error", None)), "a Unicode digit never gives another value"
            if outcome[0] == "value":
                values.append(1)
                assert all(math.isfinite(n) for n in _numbers(outcome[1])), outcome[1]
                assert oracle is not None, f"no oracle for {registered.name}"
                oracle(text, seed.asked, outcome[1])

    fuzz()
    assert len(tried) >= PROFILE.max_examples * INPUTS_PER_EXAMPLE
    if not values and registered.name in CHECKS.no_real_capture:
        pytest.skip(f"robust to {len(tried)} inputs, but {CHECKS.no_real_capture[registered.name]}")
    assert values, "no mutated input parsed at all: the mutations never leave a valid output"
