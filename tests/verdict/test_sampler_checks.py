"""Checks of several metrics from the same runs, lower-is-better metrics and informative ones.

The sources are scripted Measurements (no board): what is tested is how the sampler splits, converts,
steers and settles them.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from hil.verdict.errors import ParseError
from hil.verdict.measurement import Measurement, Quantity
from hil.verdict.result import StopReason, Verdict, metric_key
from hil.verdict.sampler import measure_metrics
from hil.verdict.spec import Band, Ceiling, Direction, MetricSpec

BANDWIDTH = MetricSpec("net.udp.bandwidth", "Mbit/s", Direction.HIGHER, Band(low=200.0), reads="bandwidth")
JITTER = MetricSpec("net.udp.jitter", "ms", Direction.LOWER, Band(high=1.0), reads="jitter")
LOSS = MetricSpec("net.udp.loss", "%", Direction.LOWER, Band(high=1.0), reads="loss", check_cv=False)


def udp(bandwidth_bps: float, jitter_us: float, loss: float) -> Measurement:
    """What an iperf3 UDP wrapper returns: bit/s and microseconds, as the tool reports them."""
    return Measurement(
        {
            "bandwidth": Quantity(bandwidth_bps, "bit/s"),
            "jitter": Quantity(jitter_us, "us"),
            "loss": Quantity(loss, "%"),
        },
        raw=f"iperf3 output {bandwidth_bps}",
        details={"bytes": 1234},
    )


def run(specs, source, clock):
    return measure_metrics(specs, source, board="vlab", clock=clock, wall=clock)


def steady(n: int = 30, **overrides: float) -> list[Measurement]:
    values = {"bandwidth_bps": 300e6, "jitter_us": 200.0, "loss": 0.0} | overrides
    return [
        udp(
            values["bandwidth_bps"] * (1 + 0.002 * (i % 3 - 1)),
            values["jitter_us"] * (1 + 0.01 * (i % 2)),
            values["loss"],
        )
        for i in range(n)
    ]


def test_one_sample_feeding_three_metrics_yields_three_results_in_their_units(scripted, clock):
    results = run([BANDWIDTH, JITTER, LOSS], scripted(steady()), clock)
    assert [r.metric for r in results] == ["net.udp.bandwidth", "net.udp.jitter", "net.udp.loss"]
    assert [r.verdict for r in results] == [Verdict.PASS] * 3
    bandwidth, jitter, loss = results
    assert bandwidth.unit == "Mbit/s" and bandwidth.stats.median == pytest.approx(300.0, rel=0.01)
    assert jitter.unit == "ms" and jitter.stats.median == pytest.approx(0.2, rel=0.02)  # 200 us
    assert loss.values == [0.0] * len(loss.values)
    # The same runs: same count, same start times; the raw output is kept once, with the first metric.
    assert len({len(r.samples) for r in results}) == 1
    assert [s.started for s in bandwidth.samples] == [s.started for s in jitter.samples]
    assert all(s.raw.startswith("iperf3 output") and s.details == {"bytes": 1234} for s in bandwidth.samples)
    assert all(s.raw == "" for s in jitter.samples + loss.samples)


def test_a_lower_is_better_metric_fails_on_the_high_side_and_says_too_high(scripted, clock):
    results = run([BANDWIDTH, JITTER], scripted(steady(jitter_us=3000.0)), clock)
    bandwidth, jitter = results
    assert bandwidth.verdict is Verdict.PASS
    assert (jitter.verdict, jitter.side) == (Verdict.FAIL, "high")
    assert jitter.reason.startswith("too high") and "ms" in jitter.reason
    assert jitter.direction is Direction.LOWER


def test_a_lower_is_better_metric_below_its_band_is_better_not_slower(scripted, clock):
    spec = replace(JITTER, band=Band(low=0.5, high=2.0))
    [jitter] = run([spec], scripted(steady(jitter_us=100.0)), clock)
    assert (jitter.verdict, jitter.side) == (Verdict.FAIL, "low")
    assert jitter.reason.startswith("better than expected")


def test_an_informative_metric_is_recorded_not_gated(scripted, clock):
    informative = replace(JITTER, band=None)
    bandwidth, jitter = run([BANDWIDTH, informative], scripted(steady(jitter_us=9000.0)), clock)
    assert bandwidth.verdict is Verdict.PASS
    assert jitter.verdict is Verdict.INFO and jitter.band is None
    assert jitter.reason.startswith("recorded, not gated: median 9")
    assert len(jitter.samples) == len(bandwidth.samples)


def test_informative_metrics_do_not_prolong_sampling(scripted, clock):
    noisy = [udp(300e6, 100.0 * (1 + i % 2 * 3), 0.0) for i in range(30)]  # jitter CV far above any max_cv
    bandwidth, jitter = run([BANDWIDTH, replace(JITTER, band=None)], scripted(noisy), clock)
    assert bandwidth.stop_reason is StopReason.DECIDED and len(bandwidth.samples) == BANDWIDTH.min_samples
    assert jitter.verdict is Verdict.INFO


def test_a_loss_that_is_zero_in_most_runs_is_judged_by_its_band_not_its_spread(scripted, clock):
    losses = [0.0, 0.0, 0.1, 0.0, 0.0, 0.0, 0.1, 0.0] * 4  # CV > 100%: UNSTABLE if the spread counted
    source = scripted([udp(300e6, 200.0, loss) for loss in losses])
    _, loss = run([BANDWIDTH, LOSS], source, clock)
    assert loss.verdict is Verdict.PASS, loss.reason
    assert "% (its spread not gated)" in loss.reason and "% <= 5.0%" not in loss.reason  # not "CV 223.6% <= 5.0%"
    unstable = run([BANDWIDTH, replace(LOSS, check_cv=True)], scripted([udp(300e6, 200.0, x) for x in losses]), clock)
    assert unstable[1].verdict is not Verdict.PASS  # control: with the CV checked it would not pass


def test_a_metric_settled_early_keeps_decided_while_another_samples_on(scripted, clock):
    edge = [udp(300e6, 1000.0 * (0.9 if i % 2 else 1.1), 0.0) for i in range(40)]  # jitter straddles 1 ms
    bandwidth, jitter = run([BANDWIDTH, JITTER], scripted(edge), clock)
    assert jitter.stop_reason is StopReason.MAX_SAMPLES and len(jitter.samples) == JITTER.max_samples
    assert bandwidth.stop_reason is StopReason.DECIDED and bandwidth.verdict is Verdict.PASS
    assert len(bandwidth.samples) == len(jitter.samples)  # judged on all the runs taken


def test_a_quantity_the_tool_did_not_deliver_is_an_error_for_every_metric(scripted, clock):
    partial = Measurement({"bandwidth": Quantity(300e6, "bit/s")}, raw="no jitter here")
    results = run([BANDWIDTH, JITTER], scripted([partial] * 10), clock)
    assert [r.verdict for r in results] == [Verdict.ERROR, Verdict.ERROR]
    assert "gave no 'jitter'" in results[0].reason and results[0].error_output == "no jitter here"


def test_a_parse_error_ends_every_metric_of_the_check_keeping_what_was_measured(scripted, clock):
    script = [*steady(4), ParseError("iperf3 printed no JSON object", raw_output="garbage")]
    results = run([BANDWIDTH, JITTER, LOSS], scripted(script), clock)
    assert all(r.verdict is Verdict.ERROR and r.stop_reason is StopReason.ERROR for r in results)
    assert all(len(r.warmup) == 1 and len(r.samples) == 3 for r in results)
    assert "measurement failed at sample 4" in results[1].reason and results[1].error_output == "garbage"


def test_one_metric_above_its_ceiling_makes_the_whole_run_untrustworthy(scripted, clock):
    capped = replace(BANDWIDTH, ceiling=Ceiling(53.248, "MB/s", "USB 2.0 bulk"))  # 425.984 Mbit/s
    bandwidth, jitter = run([capped, JITTER], scripted(steady(bandwidth_bps=900e6)), clock)
    assert bandwidth.verdict is Verdict.ERROR and "above the physical ceiling 53.25 MB/s" in bandwidth.reason
    assert "(= 112.5 MB/s)" in bandwidth.reason  # 900 Mbit/s shown in the ceiling's unit
    assert jitter.verdict is Verdict.ERROR and jitter.reason.startswith("the same runs are not trustworthy")


def test_efficiency_is_computed_across_units(scripted, clock):
    capped = replace(BANDWIDTH, ceiling=Ceiling(53.248, "MB/s", "USB 2.0 bulk"))
    [bandwidth] = run([capped], scripted(steady(bandwidth_bps=212.992e6)), clock)
    assert bandwidth.efficiency == pytest.approx(0.5, rel=0.01)


def test_a_check_of_several_metrics_needs_measurements(scripted, clock):
    with pytest.raises(TypeError, match="needs a Measurement"):
        run([BANDWIDTH, JITTER], scripted([300.0] * 10), clock)


def test_a_metric_named_twice_is_refused(scripted, clock):
    with pytest.raises(ValueError, match="appears twice"):
        run([BANDWIDTH, BANDWIDTH], scripted(steady()), clock)


def test_one_metric_for_several_devices_from_the_same_runs_stays_apart_by_its_parameters(scripted, clock):
    # usb.disk.together.*: every disk's dd at once; each disk's rate under metric_key("throughput", {"disk": ...}).
    def disk(name: str, low: float) -> MetricSpec:
        reads = metric_key("throughput", {"disk": name})
        return MetricSpec("disk.rate", "MB/s", Direction.HIGHER, Band(low=low), params={"disk": name}, reads=reads)

    runs = [
        Measurement(
            {"throughput[disk=a]": Quantity(100.0 + i % 2, "MB/s"), "throughput[disk=b]": Quantity(40.0, "MB/s")}
        )
        for i in range(30)
    ]
    a, b = run([disk("a", 80.0), disk("b", 50.0)], scripted(runs), clock)
    assert (a.params, a.verdict, b.params, b.verdict) == ({"disk": "a"}, Verdict.PASS, {"disk": "b"}, Verdict.FAIL)
    assert b.stats.median == 40.0 and a.stats.median == pytest.approx(100.5, abs=0.5)
    with pytest.raises(ValueError, match=r"appears twice: \['disk.rate\[disk=a\]', 'disk.rate\[disk=a\]'\]"):
        run([disk("a", 80.0), disk("a", 80.0)], scripted(runs), clock)
