"""The stopping rule (precision.py): it stops when precise, never before the minimum, and
the maximum and the time cap hold; and its coverage when it stops early."""

import random

import pytest

from bench_runner.precision import StoppingRule
from bench_runner.stats import quantile_interval

QUIET = [100.0 + 0.1 * (index % 5) for index in range(400)]  # within 0.4 %
NOISY = [100.0 if index % 2 else 300.0 for index in range(400)]  # two modes, far apart


def run_until_stopped(
    rule: StoppingRule, samples: list[float], seconds_each: float = 0.1
) -> tuple[int, str]:
    """Feed ``samples`` one per iteration, ``seconds_each`` apart, until the rule stops."""
    for count in range(1, len(samples) + 1):
        reason = rule.stop_reason(samples[:count], count, count * seconds_each)
        if reason is not None:
            return count, reason
    raise AssertionError("the rule never stopped")


def test_a_quiet_mode_stops_at_the_minimum_as_precise() -> None:
    assert run_until_stopped(StoppingRule(min_iterations=10), QUIET) == (10, "precise")


def test_it_never_stops_before_the_minimum() -> None:
    rule = StoppingRule(min_iterations=25)
    for count in range(1, 25):
        assert rule.stop_reason(QUIET[:count], count, 0.0) is None
    assert rule.stop_reason(QUIET[:25], 25, 0.0) == "precise"


def test_a_noisy_mode_runs_to_its_maximum() -> None:
    assert run_until_stopped(StoppingRule(max_iterations=60), NOISY, 0.01) == (60, "max")


def test_the_time_cap_holds() -> None:
    """One iteration a second and a 30 s cap: the 30th stops it."""
    assert run_until_stopped(StoppingRule(time_cap_s=30.0), NOISY, 1.0) == (30, "cap")


def test_failed_iterations_count_toward_the_maximum() -> None:
    rule = StoppingRule(min_iterations=5, max_iterations=8)
    assert rule.stop_reason([], 8, 1.0) == "max"


def test_a_fixed_count_ignores_precision() -> None:
    rule = StoppingRule(fixed_iterations=3)
    assert rule.stop_reason(NOISY[:2], 2, 0.0) is None
    assert rule.stop_reason(NOISY[:3], 3, 0.0) == "fixed"
    outcome = rule.outcome(QUIET[:20], "fixed")
    assert (outcome.rule, outcome.min_iterations, outcome.precise) == ("fixed", None, True)


def test_the_outcome_records_what_was_reached() -> None:
    rule = StoppingRule(target_half_width_pct=3.0, max_iterations=60)
    outcome = rule.outcome(NOISY[:60], "max")
    assert outcome.stop_reason == "max"
    assert outcome.achieved_half_width_pct is not None
    assert outcome.achieved_half_width_pct > 3.0
    assert not outcome.precise


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"target_half_width_pct": 0.0}, "half-width"),
        ({"min_iterations": 0}, "min_iterations"),
        ({"min_iterations": 30, "max_iterations": 20}, "min_iterations"),
        ({"time_cap_s": 0.0}, "time cap"),
        ({"fixed_iterations": 0}, "fixed count"),
    ],
)
def test_bad_settings_are_refused(bad: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        StoppingRule(**bad)  # type: ignore[arg-type]


def test_stopping_early_keeps_the_interval_close_to_nominal() -> None:
    """Looking after every iteration lowers the coverage a little below a fixed count's;
    on a skewed distribution at a target the data reach mid-way, it stays above 90 %."""
    rng = random.Random(27)
    rule = StoppingRule(target_half_width_pct=1.0, min_iterations=10, max_iterations=400)
    truth = 100.0 + 2.0 * 0.6931471805599453  # median of 100 + Exp(mean 2)
    held = trials = 0
    for _ in range(1500):
        samples: list[float] = []
        while True:
            samples.append(100.0 + rng.expovariate(0.5))
            if rule.stop_reason(samples, len(samples), 0.0) is not None:
                break
        interval = quantile_interval(samples, 0.5)
        assert interval is not None
        held += interval[0] <= truth <= interval[1]
        trials += 1
    assert held / trials >= 0.90
