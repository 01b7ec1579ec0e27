"""Summary statistics of wall-time samples (pure functions, no I/O).

Percentiles use linear interpolation between closest ranks, the same as numpy's
default ``method="linear"`` (Hyndman & Fan type 7) and ``statistics.quantiles(...,
method="inclusive")``: for sorted samples ``x[0..n-1]`` and fraction ``q`` the rank is
``h = (n - 1) * q``; with ``i = floor(h)`` the result is ``x[i] + (h - i) * (x[i + 1] - x[i])``.
So p50 of an even count is the mean of the two middle samples, and p95 of 20 samples
lies between the 19th and 20th smallest.

The standard deviation is the sample standard deviation (divisor ``n - 1``); it is
undefined (``None``) for fewer than two samples.
"""

import math
import statistics
from collections.abc import Sequence

from pydantic import BaseModel


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
    return Stats(
        n=len(samples_ms),
        errors=errors,
        min_ms=min(samples_ms),
        max_ms=max(samples_ms),
        mean_ms=statistics.fmean(samples_ms),
        p50_ms=percentile(samples_ms, 0.50),
        p95_ms=percentile(samples_ms, 0.95),
        stddev_ms=statistics.stdev(samples_ms) if len(samples_ms) >= 2 else None,
        p99_ms=percentile(samples_ms, 0.99),
        warmup_discarded=warmup_discarded,
        excluded=excluded,
    )
