"""The benchmark's arithmetic: sample budget, percentiles, and the engine's share of the error."""

import pytest

import bench_engine as bench


@pytest.mark.parametrize(("rtt_ms", "expected"), [(0, 200), (30, 100), (70, 50), (600, 30)])
def test_samples_fit_the_time_budget(rtt_ms, expected):
    assert bench.samples_for(rtt_ms, 16.0) == expected


def test_percentile_picks_the_nearest_rank():
    samples = [float(v) for v in range(1, 101)]
    assert bench.percentile(samples, 0.99) == 99.0
    assert bench.percentile(samples, 0.5) == 51.0
    assert bench.percentile([3.0], 0.99) == 3.0


def test_engine_error_subtracts_the_unimpaired_path():
    rtt = [
        {"configured_rtt_ms": 0, "probes": {"echo": {"p50_ms": 0.1, "p50_error_ms": 0.1}}},
        {"configured_rtt_ms": 30, "probes": {"echo": {"p50_ms": 30.3, "p50_error_ms": 0.3}}},
    ]
    bench.add_error_beyond_baseline(rtt)
    assert rtt[0]["probes"]["echo"]["p50_engine_error_ms"] == 0
    assert rtt[1]["probes"]["echo"]["p50_engine_error_ms"] == pytest.approx(0.2)


def test_error_bound_is_the_smaller_of_sleeping_and_busy_polling():
    rtt = [
        {
            "probes": {
                "echo": {"p50_error_ms": 0.31},
                "echo-spin": {"p50_error_ms": 0.22},
                "connect": {"p50_error_ms": 0.12},
                "connect-spin": {"p50_error_ms": 0.29},
            }
        }
    ]
    bench.add_error_bounds(rtt)
    assert rtt[0]["p50_error_bound_ms"] == {"echo": 0.22, "connect": 0.12}
