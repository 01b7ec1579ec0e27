"""What changed between two runs, and how sure the change is.

For every series (mode, client and version, parameters) measured in both runs, from their
``samples_ms``:

- the difference of the medians, B - A, and its 95 % bootstrap percentile interval: both
  runs' samples resampled with replacement ``RESAMPLES`` times (a fixed seed, so a report
  is reproducible), the median difference of each resample, the 2.5th and 97.5th
  percentiles of those;
- the two-sided Mann-Whitney U test's p-value (scipy; no assumption on the distributions'
  shape, only that the iterations are independent);
- each run's median with its 95 % order-statistics interval (``stats.quantile_interval``,
  the interval results.json publishes, recomputed from the samples so that runs written
  before it had intervals get one too);
- a verdict: ``too few samples`` under ``MIN_SAMPLES`` in either run; ``within noise`` when
  the two medians' intervals overlap, or either has none (fewer than 6 samples): figures
  whose intervals overlap are never ranked; else ``slower`` or ``faster`` when the
  difference's interval excludes 0 and p < 0.05, ``no clear change`` otherwise.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import mannwhitneyu

from bench_runner.html_report.runs import Document, Run
from bench_runner.stats import intervals_overlap, quantile_interval

RESAMPLES = 4000
SEED = 20261123
MIN_SAMPLES = 3
ALPHA = 0.05


@dataclass(frozen=True)
class Change:
    series: str
    series_a: str
    mode: str
    client: str
    n_a: int
    n_b: int
    p50_a_ms: float
    p50_b_ms: float
    p50_a_ci: tuple[float, float] | None
    p50_b_ci: tuple[float, float] | None
    difference_ms: float
    change_pct: float
    ci_low_ms: float | None
    ci_high_ms: float | None
    p_value: float | None
    verdict: str


def median_difference_ci(
    a: Sequence[float], b: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[float, float]:
    """95 % bootstrap percentile interval of median(b) - median(a)."""
    rng = np.random.default_rng(seed)
    a_values, b_values = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    a_medians = np.median(a_values[rng.integers(0, a_values.size, (resamples, a_values.size))], 1)
    b_medians = np.median(b_values[rng.integers(0, b_values.size, (resamples, b_values.size))], 1)
    low, high = np.percentile(b_medians - a_medians, [2.5, 97.5])
    return float(low), float(high)


def change(mode_a: Document, mode_b: Document) -> Change:
    a, b = mode_a["samples_ms"], mode_b["samples_ms"]
    p50_a, p50_b = float(np.median(a)), float(np.median(b))
    interval_a, interval_b = quantile_interval(a, 0.5), quantile_interval(b, 0.5)
    low = high = p_value = None
    if min(len(a), len(b)) < MIN_SAMPLES:
        verdict = "too few samples"
    else:
        low, high = median_difference_ci(a, b)
        p_value = float(mannwhitneyu(a, b, alternative="two-sided").pvalue)
        if intervals_overlap(interval_a, interval_b):
            verdict = "within noise"
        elif p_value < ALPHA and low > 0:
            verdict = "slower"
        elif p_value < ALPHA and high < 0:
            verdict = "faster"
        else:
            verdict = "no clear change"
    return Change(
        series=mode_b["series"],
        series_a=mode_a["series"],
        mode=mode_b["mode"],
        client=mode_b["client"],
        n_a=len(a),
        n_b=len(b),
        p50_a_ms=p50_a,
        p50_b_ms=p50_b,
        p50_a_ci=interval_a,
        p50_b_ci=interval_b,
        difference_ms=p50_b - p50_a,
        change_pct=100.0 * (p50_b - p50_a) / p50_a if p50_a else 0.0,
        ci_low_ms=low,
        ci_high_ms=high,
        p_value=p_value,
        verdict=verdict,
    )


def _series_key(mode: Document) -> tuple[str, str, str]:
    """A series across runs: mode, client and parameters (the client's version may be what
    changed, so it is not part of the key)."""
    parameters = mode.get("parameters") or {}
    return (mode["mode"], mode["client"], repr(sorted(parameters.items())))


def changes(run_a: Run, run_b: Run) -> tuple[list[Change], list[str], list[str]]:
    """Changes of the series both runs measured; the series only A, and only B, measured."""
    measured_a = {_series_key(m): m for m in run_a.modes if m.get("samples_ms")}
    measured_b = {_series_key(m): m for m in run_b.modes if m.get("samples_ms")}
    both = [key for key in measured_b if key in measured_a]
    only_a = [measured_a[key]["series"] for key in measured_a if key not in measured_b]
    only_b = [measured_b[key]["series"] for key in measured_b if key not in measured_a]
    return [change(measured_a[key], measured_b[key]) for key in both], only_a, only_b
