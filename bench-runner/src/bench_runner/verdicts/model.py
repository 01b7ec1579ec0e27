"""A series' verdict as results.json carries it (``modes[].verdict``, SCHEMA.md)."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel

VerdictKind = Literal[
    "regression", "improved", "unchanged", "within_noise", "new", "insufficient_history"
]
IntervalsOutcome = Literal["overlap", "apart", "unknown"]
"""Tonight's median interval beside the baseline median's: ``overlap`` (the verdict is
``within_noise``), ``apart``, or ``unknown`` (one of them has none: the robust-z gate alone
decided, as before intervals existed)."""


class Verdict(BaseModel):
    """Tonight's median against the earlier nights of the same series."""

    verdict: VerdictKind
    median_ms: float
    """Tonight's p50."""
    nights: int
    """Earlier nights of the series found (all of them, not only the baseline's)."""
    baseline_nights: int = 0
    """Nights in the baseline."""
    baseline_median_ms: float | None = None
    baseline_mad_ms: float | None = None
    noise_floor_pct: float | None = None
    """The series' iteration spread: median over the baseline nights of each night's
    1.4826 x MAD of its samples, percent of that night's median."""
    threshold_pct: float | None = None
    """max(min_change_pct, noise_floor_pct): the smallest change worth a verdict."""
    change_pct: float | None = None
    """Level judged against the baseline median, percent (+ slower)."""
    robust_z: float | None = None
    """(level - baseline median) / its scale (gate.py); null when the scale is 0."""
    rule: Literal["tonight", "sustained"] | None = None
    """What was judged: tonight alone, or tonight with last night (a shift that lasts)."""
    changepoint_run_id: str | None = None
    """The first night of the lasting shift the change-point search found, when the
    verdict is a regression or an improvement and the search found one."""
    changepoint_started_at: datetime | None = None
    p50_ci_low_ms: float | None = None
    """Tonight's median's 95 % interval (its samples' order statistics), whatever the
    verdict; null under 6 samples."""
    p50_ci_high_ms: float | None = None
    baseline_ci_low_ms: float | None = None
    """The baseline median's 95 % interval (order statistics of the baseline nights'
    medians, gate.py); null under 6 baseline nights."""
    baseline_ci_high_ms: float | None = None
    intervals: IntervalsOutcome | None = None
    """The two intervals side by side; null for ``new`` and ``insufficient_history``, and in
    verdicts written before intervals existed."""
