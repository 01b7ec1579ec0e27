import math

import pytest

from bench_runner.stats import percentile, summarize


@pytest.mark.parametrize(
    ("samples", "q", "expected"),
    [
        # Values from numpy.percentile(samples, 100 * q) (default method="linear").
        ([1.0, 2.0, 3.0, 4.0], 0.50, 2.5),
        ([1.0, 2.0, 3.0, 4.0], 0.95, 3.85),
        ([5.0], 0.95, 5.0),
        ([10.0, 20.0], 0.95, 19.5),
        ([float(i) for i in range(1, 21)], 0.95, 19.05),
        ([float(i) for i in range(1, 21)], 0.50, 10.5),
        ([3.0, 1.0, 2.0], 0.50, 2.0),  # unsorted input
        ([1.0, 2.0, 3.0, 4.0], 0.0, 1.0),
        ([1.0, 2.0, 3.0, 4.0], 1.0, 4.0),
    ],
)
def test_percentile_matches_numpy_linear(samples: list[float], q: float, expected: float) -> None:
    assert percentile(samples, q) == pytest.approx(expected)


def test_percentile_rejects_empty_and_out_of_range() -> None:
    with pytest.raises(ValueError, match="no samples"):
        percentile([], 0.5)
    with pytest.raises(ValueError, match="within"):
        percentile([1.0], 1.5)


def test_summarize_known_vector() -> None:
    stats = summarize([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], errors=1)
    assert stats.n == 8
    assert stats.errors == 1
    assert stats.min_ms == 2.0
    assert stats.max_ms == 9.0
    assert stats.mean_ms == 5.0
    assert stats.p50_ms == 4.5
    assert stats.p95_ms == pytest.approx(8.3)
    # Sample standard deviation: sqrt(32 / 7), not the population value 2.0.
    assert stats.stddev_ms == pytest.approx(math.sqrt(32 / 7))


def test_summarize_single_sample_has_no_stddev() -> None:
    stats = summarize([12.5], errors=0)
    assert stats.n == 1
    assert stats.p95_ms == 12.5
    assert stats.stddev_ms is None


def test_summarize_without_samples() -> None:
    stats = summarize([], errors=3)
    assert stats.n == 0
    assert stats.errors == 3
    assert stats.p50_ms is None
    assert stats.mean_ms is None


def test_p99_and_warmup_discarded() -> None:
    samples = [float(i) for i in range(1, 101)]
    stats = summarize(samples, errors=0, warmup_discarded=2)
    # numpy.percentile(range(1, 101), 99) == 99.01
    assert stats.p99_ms == pytest.approx(99.01)
    assert stats.warmup_discarded == 2
    empty = summarize([], errors=3, warmup_discarded=1)
    assert empty.p99_ms is None
    assert empty.warmup_discarded == 1
