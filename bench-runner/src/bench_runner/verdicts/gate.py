"""The robust-z gate: tonight's median of a series against the earlier nights (pure).

The baseline is the last ``baseline_nights`` nightly medians before what is judged: their
median ``B`` and their median absolute deviation ``MAD``. A level ``L`` (tonight's median,
or the mean of last night's and tonight's) is judged by

- its change ``c = 100 (L - B) / B`` percent,
- its scale ``s = max(1.4826 MAD, se) / sqrt(m)``: the night-to-night spread (1.4826 MAD
  is the standard deviation for normal data), never below ``se``, the standard error of a
  night's median from its own iterations (``1.2533 x 1.4826 x MAD(samples) / sqrt(n)``,
  averaged over the ``m`` nights judged), so that a few identical nights do not make any
  change infinitely significant; divided by ``sqrt(m)`` because ``m`` nights are averaged,
- its robust z ``z = (L - B) / s`` (None when ``s`` is 0),
- the threshold ``t = max(min_change_pct, noise floor)``, the noise floor being the median
  over the baseline nights of each night's iteration spread (1.4826 x MAD of its samples,
  percent of its median): a change smaller than what one iteration varies is not reported
  even when many quiet nights make it significant.

A level is flagged when ``|z| > z_threshold`` and ``|c| + 200 s / B >= t``: the change
reaches the threshold within two of its standard errors. Without that allowance a true
change of exactly the threshold would be flagged every other night only.

Two levels are judged: ``tonight`` (tonight's median against the nights before it) and
``sustained`` (the mean of last night's and tonight's medians against the nights before
last night, when there are enough of them): a shift that lasts is seen on its second night
with half the variance. The verdict is ``regression`` (slower) or ``improved`` (faster)
when ``tonight`` is flagged, or when ``sustained`` is flagged in the direction tonight moved;
else ``unchanged``. No earlier night: ``new``; fewer than ``min_nights``:
``insufficient_history``.

Before any of that, tonight's median is set beside the baseline's with their 95 %
intervals: when they overlap the verdict is ``within_noise``, whatever the robust z says
(two figures whose intervals overlap are never ranked). Tonight's interval is its median's
order-statistics interval over its iterations (``stats.quantile_interval``, the interval
results.json publishes). The baseline's is the same interval of the median of the baseline
nights' medians: the baseline figure is that median ``B``, so its interval is the one that
says how well the nights pin ``B`` down, night-to-night drift included, and it narrows as
nights accumulate, as an interval of a median should. The union of the nights' own
intervals was not chosen: it spans the extreme nights, widens with every night kept and
describes the range of single nights (the robust z's business), not the uncertainty of
``B``. In the simulation (simulation.py, 2000 trials) it finds a 5 % step within two nights
70 % of the time instead of 98 % at 2 % noise and 1 % drift, 4 % instead of 47 % at 5 % and
2 %; the median's interval keeps the first and trades the second's false alarms (1.8 %
instead of 4.4 % a mode-night) for detection (59 % without intervals). An interval that
cannot be had (tonight under 6 samples, a baseline under 6 nights) leaves the robust-z
gate alone to decide, as before intervals existed, and the result says so (``unknown``).
"""

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bench_runner.stats import intervals_overlap, quantile_interval
from bench_runner.verdicts.config import VerdictConfig
from bench_runner.verdicts.model import IntervalsOutcome, VerdictKind

MAD_TO_SD = 1.4826
"""1 / Phi^-1(3/4): the MAD of normal data times this is its standard deviation."""
MEDIAN_SE = 1.2533
"""sqrt(pi / 2): the standard error of a median of n normal samples is this x sd / sqrt(n)."""
ALLOWANCE_SE = 2.0
"""Standard errors a change may fall short of the threshold by."""


@dataclass(frozen=True)
class Night:
    """One night of a series: its median and how its iterations spread."""

    median_ms: float
    spread_pct: float | None
    """1.4826 x MAD of the night's samples, percent of its median; None without samples."""
    n: int
    """Samples the median is of."""
    p50_ci: tuple[float, float] | None = None
    """The median's 95 % interval from its samples; None under 6 samples."""

    @property
    def median_se_ms(self) -> float:
        """Standard error of the median from the iterations' spread (0 when unknown)."""
        if self.spread_pct is None or self.n < 1:
            return 0.0
        return MEDIAN_SE * self.spread_pct / 100 * self.median_ms / math.sqrt(self.n)


def night_of(samples_ms: Sequence[float]) -> Night:
    """A night from its samples: median, spread (1.4826 x MAD, percent of the median), n."""
    median = statistics.median(samples_ms)
    mad = statistics.median(abs(sample - median) for sample in samples_ms)
    spread = 100 * MAD_TO_SD * mad / median if median > 0 else None
    return Night(median, spread, len(samples_ms), quantile_interval(samples_ms, 0.5))


@dataclass(frozen=True)
class Judgement:
    """A level judged against a baseline (the figures ``Verdict`` reports)."""

    rule: Literal["tonight", "sustained"]
    baseline_nights: int
    baseline_median_ms: float
    baseline_mad_ms: float
    noise_floor_pct: float | None
    threshold_pct: float
    change_pct: float
    robust_z: float | None
    flagged: bool


@dataclass(frozen=True)
class NoiseCheck:
    """Tonight's median interval beside the baseline median's (module docstring)."""

    tonight: tuple[float, float] | None
    baseline: tuple[float, float] | None

    @property
    def outcome(self) -> IntervalsOutcome:
        if self.tonight is None or self.baseline is None:
            return "unknown"
        return "overlap" if intervals_overlap(self.tonight, self.baseline) else "apart"


def baseline_interval(baseline: Sequence[Night]) -> tuple[float, float] | None:
    """The 95 % interval of the median of the baseline nights' medians; None under 6."""
    return quantile_interval([night.median_ms for night in baseline], 0.5)


@dataclass(frozen=True)
class GateResult:
    verdict: VerdictKind
    judgement: Judgement | None
    """The level the verdict rests on: the flagged one, else tonight's; None for ``new``
    and ``insufficient_history``."""
    noise: NoiseCheck | None = None
    """The intervals set side by side; None for ``new`` and ``insufficient_history``."""


def judge_level(
    rule: Literal["tonight", "sustained"],
    baseline: Sequence[Night],
    judged: Sequence[Night],
    config: VerdictConfig,
) -> Judgement:
    """The mean median of ``judged`` against the median and MAD of ``baseline``."""
    medians = [night.median_ms for night in baseline]
    base = statistics.median(medians)
    mad = statistics.median(abs(median - base) for median in medians)
    level = statistics.fmean(night.median_ms for night in judged)
    se = statistics.fmean(night.median_se_ms for night in judged)
    scale = max(MAD_TO_SD * mad, se) / math.sqrt(len(judged))
    spreads = [night.spread_pct for night in baseline if night.spread_pct is not None]
    floor = statistics.median(spreads) if spreads else None
    threshold = max(config.min_change_pct, floor or 0.0)
    change = 100 * (level - base) / base
    z = (level - base) / scale if scale > 0 else None
    significant = abs(z) > config.z_threshold if z is not None else level != base
    large = abs(change) + ALLOWANCE_SE * 100 * scale / base >= threshold
    return Judgement(
        rule, len(baseline), base, mad, floor, threshold, change, z, significant and large
    )


def gate(history: Sequence[Night], tonight: Night, config: VerdictConfig) -> GateResult:
    """Tonight's verdict given the earlier nights, oldest first (module docstring)."""
    if not history:
        return GateResult("new", None)
    if len(history) < config.min_nights:
        return GateResult("insufficient_history", None)
    n = config.baseline_nights
    alone = judge_level("tonight", history[-n:], [tonight], config)
    noise = NoiseCheck(tonight.p50_ci, baseline_interval(history[-n:]))
    if noise.outcome == "overlap":
        return GateResult("within_noise", alone, noise)
    if alone.flagged:
        return GateResult(_direction(alone.change_pct), alone, noise)
    if len(history) - 1 >= config.min_nights:
        lasting = judge_level("sustained", history[-n - 1 : -1], [history[-1], tonight], config)
        if lasting.flagged and (lasting.change_pct > 0) == (alone.change_pct > 0):
            return GateResult(_direction(lasting.change_pct), lasting, noise)
    return GateResult("unchanged", alone, noise)


def _direction(change_pct: float) -> VerdictKind:
    return "regression" if change_pct > 0 else "improved"
