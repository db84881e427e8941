"""`hil.matrix`: a quick and a full set of values for one parameter, chosen with --matrix."""

import pytest

import hil

TESTS = """
import hil

@hil.matrix("bs", quick=["64K", "1M"], full=["4K", "64K", "1M"], ids="bs={}")
def test_sizes(bs):
    pass
"""


@pytest.mark.parametrize(
    ("size", "ids"), [(None, ["64K", "1M"]), ("quick", ["64K", "1M"]), ("full", ["4K", "64K", "1M"])]
)
def test_the_matrix_option_picks_the_set(pytester, size, ids):
    pytester.makepyfile(TESTS)
    args = ["--collect-only", "-q", "-p", "no:cacheprovider"] + ([f"--matrix={size}"] if size else [])
    result = pytester.runpytest_subprocess(*args)
    result.stdout.fnmatch_lines([f"test_*.py::test_sizes[[]bs={bs}[]]" for bs in ids])
    assert result.stdout.str().count("::test_sizes[") == len(ids)


def test_a_quick_value_missing_from_the_full_set_is_refused_when_the_module_loads():
    with pytest.raises(ValueError, match=r"quick values \['2M'\] are not in the full matrix"):
        hil.matrix("bs", quick=["2M"], full=["1M"])
