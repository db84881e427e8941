"""Numbers that cannot lie: parsers fed outputs made invalid by construction, which must never give a number.

tests/measure/test_parser_fuzz.py checks that a value a parser returns agrees with the text; this module asks
the other question: could it be a measurement of what was asked? Each invalidation (beside its tool, in
tests/measure/parser_checks/<tool>.py) edits a valid real capture (or, for the drivers nobody has captured, a
line rendered from the driver's printf, as their unit tests do) so that it contradicts what was asked, the
tool's own other figures, or physics: a rate that disagrees with bytes and time, another job than the one
asked, a transfer the driver reported as failed, a loss below 0, a resume that was only queued, two runs
joined, a summary cut short, a figure finer than its clock, a failure printed, a last line garbled. Each example
then gets up to two kernel console lines (which change nothing) at random places, and may have its line ends
turned into a serial console's CR LF.

Per parser: MAX_EXAMPLES inputs, counted; the number of values returned from them must be 0. The same
treatment of the valid bases must give a value every time (the oracle's other half). The inputs come from a
seeded random generator (the same on every run): hypothesis's drawing cost ~10x the parse. HIL_PARSER_FUZZ=quick: 500
inputs per parser (as test_parser_fuzz's quick profile)."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
from parser_checks import Base, collect
from test_parser_fuzz import KERNEL_MESSAGES, _seeds

from hil.measure.parsing import PARSERS
from hil.verdict.errors import MeasurementError

DATA = Path(__file__).resolve().parents[1] / "data"
# As test_parser_fuzz's inputs: 10 000 (what CI and `bash scripts/test.sh` run), or 500 with HIL_PARSER_FUZZ=quick
# (`bash scripts/test.sh --quick`, for editing a parser).
MAX_EXAMPLES = 500 if os.environ.get("HIL_PARSER_FUZZ") == "quick" else 10_000
SEED = 29

# -- valid bases --------------------------------------------------------------------------------------


def _real_bases(parser_name: str) -> list[Base]:
    """The parser's real captures that parse to a value as captured."""
    registered = PARSERS[parser_name]
    bases = []
    for seed in _seeds(registered):
        try:
            registered.func(seed.text, **seed.asked)
        except MeasurementError:
            continue
        bases.append(Base(seed.name, seed.text, seed.asked))
    return bases


# Each parser's invalidations live beside its tool (tests/measure/parser_checks/<tool>.py), or its NOT_YET
# there says why there are none yet (its fuzz oracle still holds it to the text).
CHECKS = collect()


def test_every_parser_is_invalidated():
    assert set(CHECKS.invalidations) == set(PARSERS)


def _cases(parser_name: str) -> list[tuple[Base, str, str, dict[str, Any]]]:
    """Each valid base with each invalidation that changes it (an edit with nothing to edit is skipped)."""
    bases = CHECKS.bases.get(parser_name, lambda: _real_bases(parser_name))()
    assert bases, f"{parser_name}: no valid base to invalidate"
    cases = []
    for base in bases:
        for name, edit in CHECKS.invalidations[parser_name].items():
            text, asked = edit(base.text, dict(base.asked))
            if text != base.text or asked != base.asked:
                cases.append((base, name, text, asked))
    return cases


def _with_kernel_lines(text: str, rng: random.Random, count: int) -> str:
    for _ in range(count):
        starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        at = rng.choice(starts)
        line = f"[{rng.randrange(100000):5d}.{rng.randrange(1000000):06d}] {rng.choice(KERNEL_MESSAGES)}\n"
        text = text[:at] + line + text[at:]
    return text


def _treated(text: str, rng: random.Random) -> str:
    """Up to two kernel lines between the tool's lines, and maybe a serial console's CR LF line ends."""
    text = _with_kernel_lines(text, rng, rng.randrange(3))
    return text.replace("\n", "\r\n") if rng.random() < 0.2 and "\r" not in text else text


@pytest.mark.parametrize("parser_name", sorted(CHECKS.invalidations))
def test_no_number_comes_from_an_invalid_output(parser_name, record_property):
    registered = PARSERS[parser_name]
    cases = _cases(parser_name)
    rng = random.Random(f"{SEED}-{parser_name}")
    numbers: list[str] = []
    for _ in range(MAX_EXAMPLES):
        base, name, text, asked = rng.choice(cases)
        text = _treated(text, rng)
        try:
            value = registered.func(text, **asked)
        except MeasurementError:
            continue
        numbers.append(f"{base.name} / {name}: {value!r}")
    record_property("inputs", MAX_EXAMPLES)
    record_property("numbers_from_invalid", len(numbers))
    assert {name for _, name, _, _ in cases} == set(CHECKS.invalidations[parser_name]), (
        "an invalidation applies nowhere"
    )
    assert numbers == [], f"{len(numbers)} of {MAX_EXAMPLES} invalid outputs gave a number: {numbers[:5]}"


@pytest.mark.parametrize("parser_name", sorted(CHECKS.invalidations))
def test_the_valid_bases_give_a_value_however_the_console_treats_them(parser_name):
    registered = PARSERS[parser_name]
    bases = CHECKS.bases.get(parser_name, lambda: _real_bases(parser_name))()
    rng = random.Random(f"{SEED}-valid-{parser_name}")
    for _ in range(200):
        base = rng.choice(bases)
        registered.func(_treated(base.text, rng), **base.asked)  # a MeasurementError fails the test
