"""gnmi/stream's update rate wherever a mode's summary goes (results.json ``modes[].stream``,
modes.csv ``updates_per_second``, the InfluxDB ``mode_summary`` field, the Pushgateway gauge),
and nothing of it for the other modes."""

import csv
import json
from pathlib import Path

from prometheus_client import generate_latest

from bench_runner.influx_schema import Measurement, SummaryField
from bench_runner.outputs import write_outputs
from bench_runner.results import ModeRun, RunResult, StreamSummary
from bench_runner.sinks.influx import run_points
from bench_runner.sinks.pushgateway import run_registry

RATE = StreamSummary(
    updates_per_second=812.5,
    updates=1625,
    window_s=2.0,
    sample_interval_ms=1.0,
    path="/interfaces/interface[name=Loopback0]/state/counters",
)


def _with_stream(sample_run: tuple[RunResult, list[ModeRun]]) -> tuple[RunResult, list[ModeRun]]:
    run, mode_runs = sample_run
    streaming = mode_runs[0].result.model_copy(update={"stream": RATE})
    mode_runs = [ModeRun(streaming, mode_runs[0].records), *mode_runs[1:]]
    return run.model_copy(update={"modes": [m.result for m in mode_runs]}), mode_runs


def test_results_and_modes_csv_carry_the_rate(
    tmp_path: Path, sample_run: tuple[RunResult, list[ModeRun]]
) -> None:
    run, mode_runs = _with_stream(sample_run)
    results = json.loads(run.model_dump_json())
    assert results["modes"][0]["stream"]["updates_per_second"] == 812.5
    assert results["modes"][1]["stream"] is None
    write_outputs(run, mode_runs, tmp_path, ["bench-runner", "run"], {}, None)
    with (tmp_path / run.run_id / "modes.csv").open() as rows:
        rates = [row["updates_per_second"] for row in csv.DictReader(rows)]
    assert rates == ["812.5", ""]


def test_influx_summary_and_pushgateway_gauge(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, mode_runs = _with_stream(sample_run)
    summaries = [
        point
        for point in run_points(run, mode_runs)
        if point.measurement == Measurement.MODE_SUMMARY
    ]
    rates = [point.fields.get(SummaryField.UPDATES_PER_SECOND) for point in summaries]
    assert sorted(rates, key=lambda rate: rate is None) == [812.5, None]
    exposition = generate_latest(run_registry(run)).decode()
    gauges = [
        line
        for line in exposition.splitlines()
        if line.startswith("transport_bench_mode_stream_updates_per_second{")
    ]
    assert len(gauges) == 1
    assert gauges[0].endswith(" 812.5")
    assert f'mode="{run.modes[0].mode}"' in gauges[0]
