"""Summary statistics of wall-time samples (pure functions, no I/O).

Percentiles use linear interpolation between closest ranks, the same as numpy's
default ``method="linear"`` (Hyndman & Fan type 7) and ``statistics.quantiles(...,
method="inclusive")``: for sorted samples ``x[0..n-1]`` and fraction ``q`` the rank is
``h = (n - 1) * q``; with ``i = floor(h)`` the result is ``x[i] + (h - i) * (x[i + 1] - x[i])``.
So p50 of an even count is the mean of the two middle samples, and p95 of 20 samples
lies between the 19th and 20th smallest.

The standard deviation is the sample standard deviation (divisor ``n - 1``); it is
undefined (``None``) for fewer than two samples.

Confidence intervals of a quantile come from order statistics, with no assumption on the
distribution's shape. For n independent samples of a continuous distribution whose q-quantile is
``Q``, the number ``B`` of samples below ``Q`` is Binomial(n, q), so the interval between the
l-th and u-th smallest samples (ranks from 1) holds ``Q`` with probability exactly
``P(l <= B <= u - 1)``. The interval here is equal-tailed: l is the largest rank with
``P(B < l) <= alpha / 2`` and u the smallest with ``P(B >= u) <= alpha / 2``, so it holds the
quantile with at least the nominal probability whatever the distribution, and more when
samples tie (a timer's resolution). Too few samples for a tail to fit leave the interval
undefined (``None``): 6 for the median at 95 %, 72 for p95, 368 for p99. A bootstrap was
not chosen: its percentile interval for a median undercovers at the small counts a mode
stops at, and it would make a published interval depend on a random seed.

A ratio of two medians (a speedup) takes each median's interval at 97.5 % and divides the
ends crosswise: both intervals hold together with at least 95 % (Bonferroni), so the ratio's
interval does too.
"""

import bisect
import math
import statistics
from collections.abc import Sequence

from pydantic import BaseModel

CI_LEVEL = 0.95
"""The confidence level of every published interval."""


class Stats(BaseModel):
    """Per-mode statistics in milliseconds; value fields are ``None`` when ``n`` is 0."""

    n: int
    errors: int
    min_ms: float | None
    max_ms: float | None
    mean_ms: float | None
    p50_ms: float | None
    p95_ms: float | None
    stddev_ms: float | None
    p99_ms: float | None = None
    warmup_discarded: int = 0
    """Warm-up iterations run before the measured ones and left out of every figure."""
    excluded: int = 0
    """Successful iterations left out because the profile they claim was not verified
    while they ran (a fault, a change by someone else): neither samples nor errors."""
    ci_level: float = CI_LEVEL
    p50_ci_low_ms: float | None = None
    """The median's 95 % interval (order statistics); ``None`` under 6 samples."""
    p50_ci_high_ms: float | None = None
    p95_ci_low_ms: float | None = None
    """p95's interval; ``None`` under 72 samples."""
    p95_ci_high_ms: float | None = None
    p99_ci_low_ms: float | None = None
    """p99's interval; ``None`` under 368 samples."""
    p99_ci_high_ms: float | None = None
    p50_ci_half_width_pct: float | None = None
    """The larger distance from p50 to an end of its interval, in percent of p50: the
    precision a mode's iterations stop at."""


def percentile(samples: Sequence[float], q: float) -> float:
    """Linearly interpolated percentile (numpy default); ``q`` is a fraction in [0, 1]."""
    if not samples:
        raise ValueError("percentile of no samples")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be within [0, 1], got {q}")
    ordered = sorted(samples)
    rank = (len(ordered) - 1) * q
    lower = math.floor(rank)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (rank - lower) * (ordered[upper] - ordered[lower])


def binomial_cdf(n: int, q: float) -> list[float]:
    """``P(B <= k)`` for k = 0..n, B ~ Binomial(n, q), 0 < q < 1 (pure Python: the
    dashboards' generator imports this package without numpy)."""
    log_q, log_not_q = math.log(q), math.log1p(-q)
    log_n_factorial = math.lgamma(n + 1)
    cdf: list[float] = []
    total = 0.0
    for k in range(n + 1):
        total += math.exp(
            log_n_factorial
            - math.lgamma(k + 1)
            - math.lgamma(n - k + 1)
            + k * log_q
            + (n - k) * log_not_q
        )
        cdf.append(min(total, 1.0))
    return cdf


def quantile_interval_ranks(n: int, q: float, level: float = CI_LEVEL) -> tuple[int, int] | None:
    """Indexes (from 0, into the sorted samples) of the equal-tailed ``level`` interval of
    the ``q``-quantile of ``n`` samples; None when ``n`` is too small for either tail."""
    if n < 1:
        return None
    tail = (1.0 - level) / 2.0
    cdf = binomial_cdf(n, q)
    # P(B < l) = cdf[l - 1]: the count of cdf values within the tail is the largest l.
    lower_rank = bisect.bisect_right(cdf, tail)
    # P(B >= u) = 1 - cdf[u - 1]: the first index reaching 1 - tail is u - 1.
    upper_index = bisect.bisect_left(cdf, 1.0 - tail - 1e-12)
    if lower_rank < 1 or upper_index > n - 1:
        return None
    return lower_rank - 1, upper_index


def interval_coverage(n: int, q: float, ranks: tuple[int, int]) -> float:
    """The exact probability that the interval at ``ranks`` holds the q-quantile of a
    continuous distribution."""
    low, high = ranks
    cdf = binomial_cdf(n, q)
    return cdf[high] - cdf[low]


def quantile_interval(
    samples: Sequence[float], q: float, level: float = CI_LEVEL
) -> tuple[float, float] | None:
    """The ``level`` confidence interval of the ``q``-quantile, or None for too few samples."""
    ranks = quantile_interval_ranks(len(samples), q, level)
    if ranks is None:
        return None
    ordered = sorted(samples)
    return ordered[ranks[0]], ordered[ranks[1]]


def half_width_pct(center: float, interval: tuple[float, float] | None) -> float | None:
    """The larger distance from ``center`` to an end of ``interval``, in percent of it."""
    if interval is None or center <= 0:
        return None
    return max(center - interval[0], interval[1] - center) / center * 100.0


def median_half_width_pct(samples: Sequence[float]) -> float | None:
    """The median's 95 % interval's half-width in percent of the median (None: too few)."""
    if not samples:
        return None
    return half_width_pct(percentile(samples, 0.5), quantile_interval(samples, 0.5))


def ratio_interval(
    numerator_samples: Sequence[float], denominator_samples: Sequence[float]
) -> tuple[float, float] | None:
    """The 95 % interval of median(numerator) / median(denominator): each median's
    interval at 97.5 %, divided crosswise (Bonferroni); None when either is too small."""
    joint_level = 1.0 - (1.0 - CI_LEVEL) / 2.0
    top = quantile_interval(numerator_samples, 0.5, joint_level)
    bottom = quantile_interval(denominator_samples, 0.5, joint_level)
    if top is None or bottom is None or bottom[0] <= 0:
        return None
    return top[0] / bottom[1], top[1] / bottom[0]


def intervals_overlap(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool:
    """Whether two figures are within noise of each other: their intervals share a point.
    An unknown interval counts as overlapping, so unknown precision never ranks."""
    if a is None or b is None:
        return True
    return a[0] <= b[1] and b[0] <= a[1]


def summarize(
    samples_ms: Sequence[float], errors: int, warmup_discarded: int = 0, excluded: int = 0
) -> Stats:
    """Statistics of successful samples; ``errors`` counts failed iterations."""
    if not samples_ms:
        return Stats(
            n=0,
            errors=errors,
            min_ms=None,
            max_ms=None,
            mean_ms=None,
            p50_ms=None,
            p95_ms=None,
            stddev_ms=None,
            p99_ms=None,
            warmup_discarded=warmup_discarded,
            excluded=excluded,
        )
    p50 = percentile(samples_ms, 0.50)
    median_ci = quantile_interval(samples_ms, 0.50)
    p95_ci = quantile_interval(samples_ms, 0.95)
    p99_ci = quantile_interval(samples_ms, 0.99)
    return Stats(
        n=len(samples_ms),
        errors=errors,
        min_ms=min(samples_ms),
        max_ms=max(samples_ms),
        mean_ms=statistics.fmean(samples_ms),
        p50_ms=p50,
        p95_ms=percentile(samples_ms, 0.95),
        stddev_ms=statistics.stdev(samples_ms) if len(samples_ms) >= 2 else None,
        p99_ms=percentile(samples_ms, 0.99),
        warmup_discarded=warmup_discarded,
        excluded=excluded,
        p50_ci_low_ms=median_ci[0] if median_ci else None,
        p50_ci_high_ms=median_ci[1] if median_ci else None,
        p95_ci_low_ms=p95_ci[0] if p95_ci else None,
        p95_ci_high_ms=p95_ci[1] if p95_ci else None,
        p99_ci_low_ms=p99_ci[0] if p99_ci else None,
        p99_ci_high_ms=p99_ci[1] if p99_ci else None,
        p50_ci_half_width_pct=half_width_pct(p50, median_ci),
    )
