"""The intervals and the precision reach every output: results.json, modes.csv, InfluxDB's
mode_summary and the Pushgateway's gauges; a ratio's interval brackets the ratio."""

from prometheus_client import generate_latest

from bench_runner.influx_schema import SummaryField
from bench_runner.outputs import mode_rows
from bench_runner.precision import StoppingRule
from bench_runner.results import ModeRun, RunResult, apply_baseline, apply_floor_ratio
from bench_runner.sinks.influx import summary_fields
from bench_runner.sinks.pushgateway import run_registry
from bench_runner.stats import summarize

Sample = tuple[RunResult, list[ModeRun]]


def _measured(sample_run: Sample) -> RunResult:
    """The sample run with 20 samples per mode, the second mode three times slower."""
    run = sample_run[0].model_copy(deep=True)
    for index, mode in enumerate(run.modes):
        mode.samples_ms = [(30.0 + 0.1 * k) * (3 if index else 1) for k in range(20)]
        mode.stats = summarize(mode.samples_ms, errors=0)
        mode.precision = StoppingRule().outcome(mode.samples_ms, "precise")
    apply_baseline(run.modes, run.modes[1].mode)
    apply_floor_ratio(run.modes, {mode.mode: mode.client for mode in run.modes})
    return run


def test_every_output_carries_the_interval_and_the_precision(sample_run: Sample) -> None:
    run = _measured(sample_run)
    fast = run.modes[0]
    assert fast.stats.p50_ci_low_ms is not None
    assert fast.stats.p50_ci_high_ms is not None
    assert fast.stats.p50_ci_low_ms < fast.stats.p50_ms < fast.stats.p50_ci_high_ms  # type: ignore[operator]

    fields = summary_fields(fast)
    assert fields[SummaryField.P50_CI_LOW_MS] == fast.stats.p50_ci_low_ms
    assert fields[SummaryField.P50_CI_HALF_WIDTH_PCT] == fast.stats.p50_ci_half_width_pct
    assert (fields[SummaryField.STOP_REASON], fields[SummaryField.PRECISE]) == ("precise", 1)
    assert fields[SummaryField.PRECISION_TARGET_PCT] == 3.0
    assert fields[SummaryField.P95_CI_LOW_MS] is None  # 20 samples: too few for p95's

    row = mode_rows(run)[0]
    assert (row["p50_ci_low_ms"], row["stop_reason"]) == (fast.stats.p50_ci_low_ms, "precise")

    exposition = generate_latest(run_registry(run)).decode()
    assert "transport_bench_mode_p50_ci_low_seconds{" in exposition
    assert "transport_bench_mode_p50_ci_half_width_ratio{" in exposition
    assert "transport_bench_mode_precise{" in exposition
    assert "transport_bench_mode_p95_ci_low_seconds{" not in exposition  # never a made-up 0


def test_a_speedup_carries_an_interval_around_it(sample_run: Sample) -> None:
    run = _measured(sample_run)
    fast, baseline = run.modes
    assert fast.speedup_vs_baseline is not None
    assert fast.speedup_vs_baseline_ci is not None
    low, high = fast.speedup_vs_baseline_ci
    assert low <= fast.speedup_vs_baseline <= high
    assert baseline.speedup_vs_baseline_ci == (1.0, 1.0)  # itself: exactly one
    assert fast.p50_vs_floor_ci == (1.0, 1.0)
    fields = summary_fields(fast)
    assert fields[SummaryField.SPEEDUP_VS_BASELINE_CI_LOW] == low
    assert (mode_rows(run)[0]["speedup_ci_low"], mode_rows(run)[0]["speedup_ci_high"]) == (
        low,
        high,
    )
