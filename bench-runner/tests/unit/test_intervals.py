"""The order-statistic intervals (stats.py): their ranks, their exact coverage, and their
coverage measured on known distributions over many seeded trials."""

import math
import random
from collections.abc import Callable

import pytest

from bench_runner.stats import (
    binomial_cdf,
    interval_coverage,
    intervals_overlap,
    median_half_width_pct,
    quantile_interval,
    quantile_interval_ranks,
    ratio_interval,
    summarize,
)

TRIALS = 4000
"""Per distribution and count: the simulation's standard error on a coverage near 0.95 is
sqrt(0.95 * 0.05 / 4000) = 0.0034, so four of them (0.014) bound a fair miss."""
TOLERANCE = 4 * math.sqrt(0.95 * 0.05 / TRIALS)

Draw = Callable[[random.Random], float]
DISTRIBUTIONS: dict[str, Draw] = {
    # What a mode's iterations look like: a floor of round trips with a right tail...
    "lognormal": lambda rng: 30.0 + rng.lognormvariate(0.0, 0.8),
    "exponential": lambda rng: 150.0 + rng.expovariate(1 / 4.0),
    # ...a retransmission now and then (two modes: 10 % of iterations pay 200 ms more)...
    "bimodal": lambda rng: rng.gauss(480.0, 6.0) + (200.0 if rng.random() < 0.1 else 0.0),
    # ...and a flat one.
    "uniform": lambda rng: rng.uniform(10.0, 12.0),
}
TRUE_QUANTILES: dict[str, Callable[[float], float]] = {
    "lognormal": lambda q: 30.0 + math.exp(0.8 * _normal_quantile(q)),
    "exponential": lambda q: 150.0 - 4.0 * math.log(1 - q),
    "uniform": lambda q: 10.0 + 2.0 * q,
}


def _normal_quantile(q: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(q)


def _bimodal_quantile(q: float) -> float:
    """Bisection on the mixture's distribution function."""
    from statistics import NormalDist

    def cdf(x: float) -> float:
        return 0.9 * NormalDist(480.0, 6.0).cdf(x) + 0.1 * NormalDist(680.0, 6.0).cdf(x)

    low, high = 400.0, 800.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if cdf(middle) < q else (low, middle)
    return (low + high) / 2


TRUE_QUANTILES["bimodal"] = _bimodal_quantile


def test_too_few_samples_have_no_interval() -> None:
    assert quantile_interval_ranks(5, 0.5) is None
    assert quantile_interval_ranks(6, 0.5) == (0, 5)
    assert quantile_interval_ranks(71, 0.95) is None
    assert quantile_interval_ranks(72, 0.95) is not None
    assert quantile_interval_ranks(367, 0.99) is None
    assert quantile_interval_ranks(368, 0.99) is not None


def test_twenty_samples_take_the_sixth_to_the_fifteenth() -> None:
    """The textbook interval for the median of 20 at 95 %: ranks 6 and 15."""
    assert quantile_interval_ranks(20, 0.5) == (5, 14)
    assert interval_coverage(20, 0.5, (5, 14)) == pytest.approx(0.9586, abs=1e-4)


@pytest.mark.parametrize("n", [6, 7, 10, 15, 20, 40, 100, 200, 1000])
@pytest.mark.parametrize("q", [0.5, 0.95, 0.99])
def test_the_exact_coverage_is_never_below_nominal(n: int, q: float) -> None:
    ranks = quantile_interval_ranks(n, q)
    if ranks is None:
        return
    assert interval_coverage(n, q, ranks) >= 0.95


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
@pytest.mark.parametrize(("n", "q"), [(10, 0.5), (20, 0.5), (60, 0.5), (100, 0.95)])
def test_measured_coverage_matches_the_exact_one(name: str, n: int, q: float) -> None:
    """On every distribution the interval holds the true quantile as often as the binomial
    says (within the simulation's error), and that is at least 95 %."""
    rng = random.Random(f"{name}-{n}-{q}")
    draw = DISTRIBUTIONS[name]
    truth = TRUE_QUANTILES[name](q)
    held = 0
    for _ in range(TRIALS):
        interval = quantile_interval([draw(rng) for _ in range(n)], q)
        assert interval is not None
        held += interval[0] <= truth <= interval[1]
    ranks = quantile_interval_ranks(n, q)
    assert ranks is not None
    exact = interval_coverage(n, q, ranks)
    assert abs(held / TRIALS - exact) <= TOLERANCE
    assert held / TRIALS >= 0.95 - TOLERANCE


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_a_ratio_of_medians_is_covered_at_least_nominally(name: str) -> None:
    """Two independent series (a baseline and a faster mode): the crosswise interval holds
    the true ratio of their medians in at least 95 % of trials."""
    rng = random.Random(f"ratio-{name}")
    draw = DISTRIBUTIONS[name]
    truth = TRUE_QUANTILES[name](0.5) / (TRUE_QUANTILES[name](0.5) / 3.0)
    held = 0
    for _ in range(TRIALS):
        baseline = [draw(rng) for _ in range(20)]
        faster = [draw(rng) / 3.0 for _ in range(15)]
        interval = ratio_interval(baseline, faster)
        assert interval is not None
        held += interval[0] <= truth <= interval[1]
    assert held / TRIALS >= 0.95 - TOLERANCE


def test_ratio_needs_seven_samples_a_side() -> None:
    """97.5 % per median needs 7 samples (6 give 96.9 %)."""
    assert ratio_interval([1.0] * 6, [1.0] * 20) is None
    assert ratio_interval([2.0] * 7, [1.0] * 7) == (2.0, 2.0)


def test_overlap_is_within_noise_and_unknown_never_ranks() -> None:
    assert intervals_overlap((10.0, 12.0), (11.5, 13.0))
    assert intervals_overlap((10.0, 12.0), (12.0, 13.0))  # touching ends share a point
    assert not intervals_overlap((10.0, 12.0), (12.1, 13.0))
    assert intervals_overlap(None, (1.0, 2.0))


def test_summary_carries_the_intervals_and_the_half_width() -> None:
    samples = [float(value) for value in range(100, 200)]  # 100 samples, 100..199
    stats = summarize(samples, errors=0)
    assert (stats.p50_ci_low_ms, stats.p50_ci_high_ms) == (139.0, 160.0)
    assert stats.p95_ci_low_ms is not None
    assert stats.p95_ci_high_ms is not None
    assert stats.p95_ci_low_ms <= stats.p95_ms <= stats.p95_ci_high_ms  # type: ignore[operator]
    assert stats.p99_ci_low_ms is None  # 100 samples: too few for p99's
    assert stats.p50_ci_half_width_pct == pytest.approx(10.5 / 149.5 * 100)
    assert median_half_width_pct(samples) == stats.p50_ci_half_width_pct
    assert summarize([], errors=2).p50_ci_low_ms is None


@pytest.mark.parametrize(("n", "q"), [(1, 0.5), (20, 0.5), (100, 0.95), (1000, 0.99)])
def test_the_binomial_distribution_function_matches_scipys(n: int, q: float) -> None:
    from scipy.stats import binom

    cdf = binomial_cdf(n, q)
    assert len(cdf) == n + 1
    for k in range(0, n + 1, max(1, n // 50)):
        assert cdf[k] == pytest.approx(binom.cdf(k, n, q), abs=1e-9)
    assert cdf[-1] == pytest.approx(1.0)
