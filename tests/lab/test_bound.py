"""A step with a legitimate wait of its own gets that long inside a sample's bound, and no longer outside it."""

from hil.lab.board import bound


def test_a_step_inside_a_short_sample_bound_gets_its_own_wait_and_the_bound_comes_back_after():
    with bound.bounded(20, "5x the warm-up's 1.0 s, at least 20 s"):
        assert bound.limit(90)[0] <= 20
        with bound.at_least(40, "the device's runtime suspend may take up to 30 s"):
            seconds, why = bound.limit(90)
            assert 39 < seconds <= 40
            assert why.startswith("sample bound 40 s: the device's runtime suspend may take up to 30 s (5x the")
        assert bound.limit(90)[0] <= 20


def test_no_bound_or_a_longer_one_is_left_as_it_is():
    with bound.at_least(40, "a wait"):
        assert bound.limit(90) == (90, "command limit 90 s")
    with bound.bounded(300, "a long sample"), bound.at_least(40, "a wait"):
        seconds, why = bound.limit(600)
        assert 299 < seconds <= 300 and why == "sample bound 300 s: a long sample"
