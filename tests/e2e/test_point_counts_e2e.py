"""Every point the runner reports is stored: the fastest modes at `local`, where many
iterations start within the same millisecond (the outage case: `make test-sink-spool`)."""

import csv
import re

from conftest import RESULTS_DIR, bench, influx_query

FASTEST_MODES = "https/batch-post,https/keep-alive"
ITERATIONS = 300


def stored(measurement: str, field: str, run_id: str) -> int:
    series = influx_query(
        f'SELECT count("{field}") FROM "{measurement}" WHERE "run_id" = \'{run_id}\''
    )
    return int(series[0]["values"][0][1]) if series else 0


def test_influxdb_stores_as_many_points_as_the_runner_reports() -> None:
    run = bench(
        "local", "--modes", FASTEST_MODES, name="e2e-count", iterations=ITERATIONS, warmup=1
    )
    assert run.exit_code == 0, run.output[-3000:]
    reported = re.search(r"(\d+) points to \S+/write", " ".join(run.output.split()))
    assert reported, run.output[-2000:]
    counts = (
        stored("run", "title", run.run_id),
        stored("iteration", "wall_ms", run.run_id),
        stored("mode_summary", "n", run.run_id),
    )
    assert counts == (1, 2 * ITERATIONS, 2)
    # One verdict per series too (regression verdicts).
    verdicts = stored("verdict", "verdict", run.run_id)
    assert verdicts == 2
    assert sum(counts) + verdicts == int(reported.group(1))
    with (RESULTS_DIR / run.run_id / "iterations.csv").open() as handle:
        assert sum(1 for _ in csv.DictReader(handle)) == 2 * ITERATIONS
