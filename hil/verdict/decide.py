"""The verdict rules (docs/verdict.md), as pure functions of a metric's statistics and its spec.

Rules, in order (the first that applies wins):
1. ERROR: a sample above the physical ceiling of the link (when the metric's unit converts to the ceiling's):
   the measurement is wrong, whatever the statistics say.
2. FAIL: a sample below the floor the device's standard sets (USB 2.0 resume timing, side "low"): a figure
   better than a compliant device can give is a finding about the board, whatever the band says.
   FAIL: the confidence interval of the mean lies entirely outside the band (side "low"/"high"): noise cannot
   rescue a metric whose whole interval is out, so this is final even with a high CV.
3. PASS: the interval lies inside the band, so does the median (for skewed or bimodal samples, whose mean no
   typical run reaches), and CV <= max_cv.
4. Otherwise the answer is open (interval straddling an edge, median outside, or CV above max_cv) and the
   sampler takes more samples. When it must stop (final=True):
   - UNSTABLE if the CV is *significantly* above max_cv (its one-sided 99% lower confidence bound exceeds it);
   - else, interval and median inside the band: MARGINAL (the CV is above max_cv only by chance as far as the
     samples can tell: a pass with a warning instead of a coin flip at the threshold);
   - else MARGINAL if the median is inside the band, FAIL if outside, the reason saying "marginal" either way.
   So a passing verdict (PASS, MARGINAL) always has its median inside the band.

Why significance for UNSTABLE: a sample CV scatters around the true CV (±CV/√(2(n-1))), so with a point test a
metric whose true CV sits at max_cv would be UNSTABLE on every other run: a flaky gate. PASS still requires the
point CV <= max_cv, so a PASS is never noisier than allowed. The band is two-sided; the direction only changes
the words ("too slow" / "too high").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from hil.verdict.result import SampleStats, Verdict
from hil.verdict.spec import Band, Ceiling, Direction, Floor, MetricSpec
from hil.verdict.stats import cv_lower_bound
from hil.verdict.units import convert, convertible

CV_WINDOW = 3  # CV_NOT_FALLING: samples over which the CV must not have fallen
# UNSTABLE needs the same evidence as a regression (p < 0.01): at a lower confidence a metric whose
# true CV sits at max_cv is called UNSTABLE on several percent of runs once sampling peeks each sample.
UNSTABLE_CONFIDENCE = 0.99
# The early stop is tested after every sample, and each look is a chance to stop a metric that is
# in fact stable enough: it demands 99.9%. In benchmarks/verdict_gate.py this keeps false UNSTABLE
# verdicts at true CV = max_cv where the single final test alone puts them (about 0.5%), while
# metrics at twice max_cv stop after about 13 samples instead of 20.
EARLY_STOP_CONFIDENCE = 0.999


@dataclass(frozen=True)
class Decision:
    """What the samples say so far. While `open`, `verdict` is what stopping now would give."""

    verdict: Verdict
    reason: str
    side: str | None = None  # "low" / "high" when the metric lies (or leans) outside the band
    open: bool = False  # True: not settled yet; more samples may change the answer


class CvState(StrEnum):
    OK = "ok"  # CV <= max_cv
    HIGH = "high"  # above max_cv, but not significantly
    UNSTABLE = "unstable"  # significantly above max_cv


def _num(value: float) -> str:
    return f"{value:.4g}"


def _ci(stats: SampleStats, unit: str) -> str:
    return f"{stats.confidence:.0%} CI [{_num(stats.ci_low)}, {_num(stats.ci_high)}] {unit}".rstrip()


def above_ceiling(value: float, unit: str, ceiling: Ceiling | None) -> bool:
    """True when value (in unit) exceeds the ceiling; False when there is none or units don't compare."""
    if ceiling is None or not convertible(unit, ceiling.unit):
        return False
    in_ceiling_unit = value if unit == ceiling.unit else convert(value, unit, ceiling.unit)
    return in_ceiling_unit > ceiling.value


def ceiling_error(value: float, unit: str, ceiling: Ceiling | None, *, what: str = "a sample") -> Decision | None:
    """ERROR decision when `value` lies above the physical ceiling, else None."""
    if ceiling is None or not ceiling.enforced or not above_ceiling(value, unit, ceiling):
        return None
    shown = f"{_num(value)} {unit}"
    if unit != ceiling.unit:
        shown += f" (= {_num(convert(value, unit, ceiling.unit))} {ceiling.unit})"
    return Decision(
        Verdict.ERROR,
        f"{what} ({shown}) is above the physical ceiling {_num(ceiling.value)} {ceiling.unit} "
        f"({ceiling.basis}): the measurement is wrong (page cache? wrong device?)",
    )


def cv_state(stats: SampleStats, max_cv: float, confidence: float | None = None) -> CvState:
    """Where the CV stands against max_cv; `confidence` defaults to UNSTABLE_CONFIDENCE."""
    if stats.cv <= max_cv:
        return CvState.OK
    if cv_lower_bound(stats, confidence or UNSTABLE_CONFIDENCE) > max_cv:
        return CvState.UNSTABLE
    return CvState.HIGH


def _outside(band: Band, stats: SampleStats) -> str | None:
    """'low'/'high' when the whole interval lies on one side of the band, else None."""
    if band.low is not None and stats.ci_high < band.low:
        return "low"
    if band.high is not None and stats.ci_low > band.high:
        return "high"
    return None


def _headline(side: str, direction: Direction) -> str:
    """How a release engineer should read 'outside the band on this side'."""
    if (side == "low") == (direction is Direction.HIGHER):  # on the bad side
        return "too slow" if side == "low" else "too high"
    return f"{'better' if side == 'low' else 'faster'} than expected (check the band and the measurement)"


def _where(side: str) -> str:
    return "below" if side == "low" else "above"


def _straddled_edge(band: Band, stats: SampleStats, unit: str) -> str:
    edges = [e for e in (band.low, band.high) if e is not None and stats.ci_low <= e <= stats.ci_high]
    if len(edges) == 1:
        return f"the band edge {_num(edges[0])} {unit}".rstrip()
    return f"the band {band.describe(unit)}"


def below_floor(value: float, unit: str, floor: Floor | None) -> Decision | None:
    """FAIL decision when the lowest sample lies below the standard's floor, else None."""
    if floor is None or not convertible(unit, floor.unit):
        return None
    if (value if unit == floor.unit else convert(value, unit, floor.unit)) >= floor.value:
        return None
    return Decision(
        Verdict.FAIL,
        f"faster than the standard allows: the lowest sample ({_num(value)} {unit}) is below {floor.describe()}: "
        "the board does not follow it (or the figure is not the one the standard times)",
        side="low",
    )


def decide(stats: SampleStats, spec: MetricSpec, *, final: bool = False) -> Decision:
    """Apply the rules above; with final=False an unsettled answer comes back open."""
    error = ceiling_error(stats.maximum, spec.unit, spec.ceiling, what="the highest sample")
    early = error or (below_floor(stats.minimum, spec.unit, spec.floor) if spec.band is not None else None)
    if early is not None:
        return early

    band, unit = spec.band, spec.unit
    if band is None:
        raise ValueError(f"{spec.metric} is informative (no band): there is no verdict to decide")
    band_text = band.describe(unit)
    cv_text = f"CV {stats.cv:.1%}"
    median_text = f"median {_num(stats.median)} {unit}".rstrip()

    side = _outside(band, stats)
    if side is not None:
        return Decision(
            Verdict.FAIL,
            f"{_headline(side, spec.direction)}: {_ci(stats, unit)} lies {_where(side)} the band "
            f"{band_text} ({median_text}, {cv_text}, n={stats.n})",
            side=side,
        )

    ci_inside = band.contains(stats.ci_low) and band.contains(stats.ci_high)
    median_side = band.side(stats.median)
    inside = ci_inside and median_side is None
    # Some figures (a loss that is 0 in most runs) spread without being unstable: their band alone decides.
    cv = cv_state(stats, spec.max_cv) if spec.check_cv else CvState.OK
    if inside and cv is CvState.OK:
        spread = f"{cv_text} <= {spec.max_cv:.1%}" if spec.check_cv else f"{cv_text} (its spread not gated)"
        return Decision(
            Verdict.PASS, f"{_ci(stats, unit)} inside the band {band_text}, {spread} ({median_text}, n={stats.n})"
        )

    # Inside, the median must still agree: with skewed or bimodal samples (say, half the runs enumerate at a
    # lower USB speed) the mean's interval says nothing about a typical run.
    place = f"is inside the band {band_text}" if ci_inside else f"straddles {_straddled_edge(band, stats, unit)}"
    position = f"{_ci(stats, unit)} {place}"
    settled = _at_the_limit(stats, spec, cv, position, median_side, inside)
    if final:
        return settled
    if not ci_inside:
        why = position
    elif median_side is not None:
        why = f"{position} but the {median_text} lies {_where(median_side)} it (skewed samples)"
    else:
        why = f"{cv_text} above max {spec.max_cv:.1%}"
    return Decision(settled.verdict, f"undecided after {stats.n} samples: {why}", settled.side, open=True)


def _at_the_limit(
    stats: SampleStats, spec: MetricSpec, cv: CvState, position: str, median_side: str | None, inside: bool
) -> Decision:
    """The final word when the interval is not clearly inside the band with CV in limits (`inside`: it and the
    median are inside, the CV is not): UNSTABLE, MARGINAL, or FAIL on the median."""
    assert spec.band is not None
    band, unit = spec.band, spec.unit
    band_text, cv_text = band.describe(unit), f"CV {stats.cv:.1%}"
    median_text = f"median {_num(stats.median)} {unit}".rstrip()
    lower = cv_lower_bound(stats, UNSTABLE_CONFIDENCE)
    cv_detail = f"{cv_text} > max {spec.max_cv:.1%} (one-sided {UNSTABLE_CONFIDENCE:.0%} lower bound {lower:.1%})"
    if cv is CvState.UNSTABLE:
        return Decision(
            Verdict.UNSTABLE, f"unstable: {cv_detail}; {_ci(stats, unit)}, {median_text}, n={stats.n}", side=median_side
        )
    if inside:
        return Decision(
            Verdict.MARGINAL, f"marginal: {position}, but {cv_detail}: not significantly above after {stats.n} samples"
        )
    if median_side is None:
        return Decision(
            Verdict.MARGINAL,
            f"marginal: {position} after {stats.n} samples; {median_text} is inside the band {band_text}",
        )
    return Decision(
        Verdict.FAIL,
        f"marginal, {_headline(median_side, spec.direction)}: {position} after {stats.n} samples; "
        f"{median_text} lies {_where(median_side)} the band {band_text}",
        side=median_side,
    )


def cv_not_falling(cv_history: Sequence[float], stats: SampleStats, spec: MetricSpec) -> bool:
    """Early-stop rule: more samples would not turn this metric into a PASS (`cv_history`: the CV after each
    counted sample from min_samples on, the newest last). All of:
    - the interval already lies inside the band: only the CV stands in the way, and sampling on could not
      uncover a FAIL;
    - the CV is above max_cv at EARLY_STOP_CONFIDENCE: were the true CV within max_cv, each look would stop
      with probability below 0.1%, so true passes are not given up; and UNSTABLE is the verdict the final rule
      would most likely reach at max_samples anyway, only sooner;
    - it has not fallen over the last CV_WINDOW samples: a settling transient (say a slow first run after the
      warm-up) makes the CV fall as steady samples accumulate; that case samples on.
    """
    if len(cv_history) <= CV_WINDOW or spec.band is None or not spec.check_cv:
        return False
    if cv_history[-1] < cv_history[-1 - CV_WINDOW]:
        return False
    inside = spec.band.contains(stats.ci_low) and spec.band.contains(stats.ci_high)
    return inside and cv_state(stats, spec.max_cv, EARLY_STOP_CONFIDENCE) is CvState.UNSTABLE
