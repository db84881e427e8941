"""Hostile or meaningless boards.yaml input: each is refused at load time with the reason, quickly.

Named after what each one checks; the inputs are the ones a user tried on the framework.
"""

from __future__ import annotations

import time

import pytest

from hil.errors import InventoryError
from hil.inventory.loader import load_inventory

PAIR = """\
pairs:
  vpair:
    env: env.yaml
    roles:
      host: {target: vboard}
      device: {target: vboard}
    link: {type: usb, speed: high, udc: dummy_udc.0, driver: {module: dummy_hcd, params: {is_super_speed: false}}}
    settings:
      test.mode: fast
    metrics:
      test.rate: {min: 8, max_cv: 5%}
"""


def refused(write_boards, catalogue, text: str | bytes) -> InventoryError:
    path = write_boards("") if isinstance(text, bytes) else write_boards(text)
    if isinstance(text, bytes):
        path.write_bytes(text)
    with pytest.raises(InventoryError) as caught:
        load_inventory(path, catalogue)
    return caught.value


def test_the_base_inventory_of_these_cases_is_valid(write_boards, catalogue):
    assert set(load_inventory(write_boards(PAIR), catalogue).boards) == {"vpair"}


def test_a_control_character_in_a_setting_is_refused_even_when_quoted(write_boards, catalogue):
    text = PAIR.replace("test.mode: fast", 'test.mode: "160\\x15touch pwned\\r"')
    error = refused(write_boards, catalogue, text)
    assert error.key == "line 9: pairs/vpair/settings/test.mode"
    assert "control character or line break" in error.problem


def test_a_line_break_in_a_string_value_is_refused(write_boards, catalogue):
    text = PAIR.replace("    env: env.yaml\n", "    description: |\n      two\n      lines\n    env: env.yaml\n")
    error = refused(write_boards, catalogue, text)
    assert "pairs/vpair/description" in error.key and "line break" in error.problem


def test_a_control_character_in_a_key_is_refused(write_boards, catalogue):
    error = refused(write_boards, catalogue, PAIR.replace("test.mode: fast", '"test.mode\\e": fast'))
    assert "control character" in error.problem


def test_nested_aliases_are_refused_before_they_expand(write_boards, catalogue):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for level in range(1, 9):  # 10^9 nodes once expanded, 300 bytes on disk
        previous = chr(ord("a") + level - 1)
        name = chr(ord("a") + level)
        bomb += f"{name}: &{name} [*{previous}, *{previous}, *{previous}, *{previous}, *{previous}]\n"
    started = time.monotonic()
    error = refused(write_boards, catalogue, bomb + PAIR)
    assert time.monotonic() - started < 2, "refused without expanding"
    assert "nodes once its aliases are expanded (at most 100000 are accepted)" in error.problem


def test_a_recursive_alias_is_refused(write_boards, catalogue):
    error = refused(write_boards, catalogue, "loop: &loop {self: *loop}\n" + PAIR)
    assert "an alias refers to itself" in error.problem


def test_bytes_that_are_not_utf8_are_refused_with_their_line(write_boards, catalogue):
    error = refused(write_boards, catalogue, PAIR.replace("fast", "f\xe4st").encode("latin-1"))
    assert (error.key, error.problem) == ("line 9", "not UTF-8 text (byte 0xe4)")


@pytest.mark.parametrize(
    ("field", "value", "text"),
    [
        ("max_cv", "0.05", "0.05 is ambiguous: a fraction or a number of percent? write '5%' or '0.05%'"),
        ("min_effect", "0.1", "0.1 is ambiguous"),
    ],
)
def test_a_percentage_given_as_a_bare_fraction_is_ambiguous(write_boards, catalogue, field, value, text):
    error = refused(write_boards, catalogue, PAIR.replace("max_cv: 5%", f"{field}: {value}"))
    assert error.key.endswith(f"pairs/vpair/metrics/test.rate/{field}")
    assert text in error.problem


@pytest.mark.parametrize(
    ("band", "text"),
    [
        ("nominal: 100, tolerance: 500%", "band floor -400 MB/s is below 0"),
        ("nominal: 0, tolerance: 5%", "nominal 0 with a relative tolerance is a band of zero width"),
        ("nominal: 100, tolerance: 0.5", "0.5 is ambiguous: a fraction or an absolute value?"),
        ("min: 10, max: 10", "min and max are both 10.0: a band of zero width passes nothing"),
        ("min: 0", "a floor of 0 MB/s gates nothing for a rate"),
        ("min: -5", "band floor -5 MB/s is below 0"),
        ("max: 0", "a ceiling of 0 MB/s for a rate passes nothing"),
    ],
)
def test_a_band_that_cannot_mean_what_was_meant_is_refused(write_boards, catalogue, band, text):
    error = refused(write_boards, catalogue, PAIR.replace("min: 8", band))
    assert "pairs/vpair/metrics/test.rate" in error.key
    assert text in error.problem


def test_a_floor_of_zero_is_fine_for_a_lower_is_better_metric(write_boards, catalogue):
    text = PAIR.replace("test.rate: {min: 8, max_cv: 5%}", "test.latency: {min: 0, max: 2}")
    assert load_inventory(write_boards(text), catalogue).boards


@pytest.mark.parametrize(
    ("params", "text"),
    [
        ("{is_super_speed: 'true num=2'}", "valid boolean"),  # free text would set a second parameter
        ("{is_super_speed: 1}", "must be bool"),
        ("{num_devices: 2}", "module dummy_hcd has no parameter 'num_devices'"),
    ],
)
def test_module_parameters_are_validated_per_module(write_boards, catalogue, params, text):
    error = refused(write_boards, catalogue, PAIR.replace("{is_super_speed: false}", params))
    assert "pairs/vpair/link/driver" in error.key
    assert text in error.problem


def test_parameters_of_a_module_hil_does_not_know_are_refused(write_boards, catalogue):
    text = PAIR.replace("module: dummy_hcd", "module: g_zero")
    assert "hil does not know the parameters of module 'g_zero'" in refused(write_boards, catalogue, text).problem


@pytest.mark.parametrize(
    ("metric", "key", "text"),
    [
        # Bands that gate nothing.
        ("test.latency: {min: 2}", "test.latency", "lower-is-better and has a minimum only"),
        ("test.rate: {min: 0.0001}", "test.rate", "a floor of 0.0001 MB/s gates nothing"),
        ("test.rate: {nominal: 100, tolerance: 99%}", "test.rate/tolerance", "a tolerance of 99% passes nearly"),
        ("test.rate: {min: 8, max: 1.0e+308}", "test.rate", "beyond any figure"),
        ("test.loss: {max: 100}", "test.loss", "a maximum of 100% for a lower-is-better percentage passes everything"),
        # A band no run can meet.
        ("test.latency: {max: 0}", "test.latency", "a ceiling of 0 ms for a time passes nothing: no run can meet it"),
        # A sample count the file wrote below the minimum, no longer raised without a word.
        ("test.rate: {min: 8, min_samples: 10, max_samples: 3}", "test.rate", "max_samples 3 is below min_samples 10"),
        (
            "test.rate: {min: 8, max_samples: 6, params: {bs=1M: {min_samples: 9}}}",
            "test.rate/params/bs=1M",
            "max_samples 6 is below min_samples 9",
        ),
        # A string where a number is meant.
        ("test.rate: {min: 8, min_samples: '5'}", "test.rate/min_samples", "valid integer"),
        ("test.rate: {min: 8, budget_s: '60'}", "test.rate/budget_s", "valid number"),
    ],
)
def test_a_band_or_count_that_gates_nothing_or_cannot_pass_is_refused_with_its_line(
    write_boards, catalogue, metric, key, text
):
    error = refused(write_boards, catalogue, PAIR.replace("test.rate: {min: 8, max_cv: 5%}", metric))
    assert error.key.startswith("line 11: ") and error.key.endswith(f"pairs/vpair/metrics/{key}"), error.key
    assert text in error.problem


def test_a_pcie_generation_given_as_a_string_is_refused(write_boards, catalogue):
    link = (
        "link: {type: usb, speed: high, udc: dummy_udc.0, driver: {module: dummy_hcd, params: {is_super_speed: false}}}"
    )
    error = refused(
        write_boards, catalogue, PAIR.replace(link, "link: {type: pcie, gen: '3', lanes: 2, emulated: true}")
    )
    assert "pairs/vpair/link" in error.key and "gen" in error.key and "valid integer" in error.problem


def test_binary_yaml_is_refused_with_its_line(write_boards, catalogue):
    error = refused(write_boards, catalogue, PAIR.replace("test.mode: fast", "test.mode: !!binary ZmFzdA=="))
    assert error.key.startswith("line 9") and "!!binary" in error.problem


def test_hils_own_max_samples_gives_way_to_a_larger_min_samples(write_boards, catalogue):
    text = PAIR.replace("test.rate: {min: 8, max_cv: 5%}", "test.rate: {min: 8, min_samples: 30}")
    assert load_inventory(write_boards(text), catalogue).boards
