"""Seed 004's offered-rate sweep (hil.measure.udp_two_step.knee) over real iperf3 UDP runs of the virtual lab:
each offered rate answered by the capture that offered it (tests/data/iperf3, .source beside each)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.measure import iperf3, udp_two_step

DATA = Path(__file__).resolve().parents[1] / "data" / "iperf3"
# Offered Mbit/s -> the run that offered it (lost 4.35%, 6.04%, 69.4%).
RUNS = {
    76.365: "vlab-ecm-hs-udp-tx-loss-denominator",
    114.541: "vlab-ecm-hs-udp-rx",
    1000.0: "vlab-usbnet-udp-rx-link-rate",
}


def offered(asked: list[float]):
    def udp(rate_mbps: float):
        asked.append(rate_mbps)
        measurement = iperf3.parse_udp((DATA / f"{RUNS[rate_mbps]}.txt").read_text())
        assert measurement.details["target_mbps"] == pytest.approx(rate_mbps)
        return measurement

    return udp


@pytest.mark.parametrize(
    ("loss_max", "knee", "runs"),
    [(5.0, 76.365, 2), (10.0, 114.541, 3), (1.0, 0.0, 1), (80.0, 1000.0, 3)],
)
def test_the_knee_is_the_highest_rate_whose_loss_stays_inside_the_band(loss_max, knee, runs):
    asked: list[float] = []
    found = udp_two_step.knee(offered(asked), list(RUNS), loss_max)
    assert found.values["knee"].value == knee and found.values["knee"].unit == "Mbit/s"
    assert asked == list(RUNS)[:runs]  # the sweep stops at the first rate past the band
    assert found.details["offered_and_lost"][0] == "76.365 Mbit/s 4.35%"
    assert found.raw.count('"sum_received"') == runs  # every run's output kept


def test_the_rates_are_seed_004s_steps_up_to_the_top():
    assert udp_two_step.sweep_rates(50, 160) == [50, 100, 150]
    assert udp_two_step.sweep_rates(50, 150) == [50, 100, 150]
    assert udp_two_step.sweep_rates(50, 20) == [50]  # one step at least
    with pytest.raises(ValueError, match="step must be > 0"):
        udp_two_step.sweep_rates(0, 100)
