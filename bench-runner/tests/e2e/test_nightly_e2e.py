"""What scheduled runs leave behind (``make test-nightly`` drives nightly.sh on the host: the
scheduler on a one-minute schedule, a run started by hand refused; then this runs in the
runner's container; skipped when the script has not run, failed under CI)."""

import json
import os
from datetime import datetime
from itertools import pairwise
from typing import Any

import httpx
import pytest

from bench_runner.settings import Settings
from prerequisites import missing

PROMETHEUS_URL = os.environ.get("PROMETHEUS_URL", "http://prometheus:9090")
RETENTION = os.environ.get("NIGHTLY_INFLUX_RETENTION")
# InfluxDB reports a policy's duration in hours.
RETENTION_HOURS = {"30d": "720h0m0s"}


@pytest.fixture(autouse=True)
def _runs_made_by_the_script() -> None:
    if not RETENTION:
        missing("needs the scheduled runs: make test-nightly")


def nightly_runs() -> list[dict[str, Any]]:
    """Each scheduled run's results.json and manifest.json, oldest first."""
    runs = []
    for directory in sorted(Settings().results_dir.glob("nightly-*")):
        runs.append(
            {
                "results": json.loads((directory / "results.json").read_text()),
                "manifest": json.loads((directory / "manifest.json").read_text()),
            }
        )
    return runs


def prometheus(query: str) -> list[dict[str, Any]]:
    response = httpx.get(f"{PROMETHEUS_URL}/api/v1/query", params={"query": query}, timeout=10)
    response.raise_for_status()
    result: list[dict[str, Any]] = response.json()["data"]["result"]
    return result


def influx(query: str) -> list[dict[str, Any]]:
    settings = Settings()
    password = settings.influx_password.get_secret_value() if settings.influx_password else ""
    response = httpx.get(
        f"{settings.influx_url}/query",
        params={"db": settings.influx_db, "q": query},
        auth=(settings.influx_username or "", password),
        timeout=15,
    )
    response.raise_for_status()
    series: list[dict[str, Any]] = response.json()["results"][0].get("series", [])
    return series


def test_two_distinct_scheduled_runs_with_results_and_manifests() -> None:
    runs = nightly_runs()
    assert len(runs) >= 2
    ids = [run["results"]["run_id"] for run in runs]
    assert len(set(ids)) == len(ids)
    for run in runs:
        assert run["results"]["plan"], run["results"]["run_id"]
        assert all(mode["ok"] for mode in run["results"]["modes"])
        manifest = run["manifest"]
        assert manifest["command"][1:4] == ["run", "--plan", "/plans/nightly-test.yaml"]
        assert manifest["lab"]["commit"] not in (None, "", "unknown")
        assert manifest["lab"]["images"]
        assert manifest["lab"]["engine"]
        assert manifest["runner"]["kernel"]
        assert manifest["libraries"]["httpx"]
        assert manifest["netem"]["engine"]


def test_scheduled_runs_never_overlapped() -> None:
    spans = [
        (
            datetime.fromisoformat(run["results"]["started_at"]),
            datetime.fromisoformat(run["results"]["finished_at"]),
        )
        for run in nightly_runs()
    ]
    spans.sort()
    for (_, earlier_end), (later_start, _) in pairwise(spans):
        assert later_start > earlier_end
    # supercronic's own view: never two executions at once, at least two executed, none failed.
    running = prometheus("max(max_over_time(supercronic_currently_running[15m]))")
    assert float(running[0]["value"][1]) == 1
    executions = prometheus("sum(supercronic_executions)")
    assert float(executions[0]["value"][1]) >= 2
    failed = prometheus("sum(supercronic_failed_executions)")
    assert not failed or float(failed[0]["value"][1]) == 0


def test_last_success_gauge_is_in_prometheus() -> None:
    latest = max(run["results"]["run_id"] for run in nightly_runs())
    series = prometheus("bench_nightly_last_success_timestamp_seconds")
    assert [sample["metric"]["run_id"] for sample in series] == [latest]
    assert prometheus("bench_nightly_last_exit_code")[0]["value"][1] == "0"


def test_every_scheduled_run_has_its_points_in_influxdb() -> None:
    for run in nightly_runs():
        run_id = run["results"]["run_id"]
        measured = sum(mode["stats"]["n"] for mode in run["results"]["modes"])
        series = influx(f"SELECT count(wall_ms) FROM iteration WHERE run_id = '{run_id}'")
        assert series, f"no iteration points for {run_id}"
        assert series[0]["values"][0][1] == measured


def test_the_retention_policy_is_applied() -> None:
    assert RETENTION is not None
    (policies,) = influx("SHOW RETENTION POLICIES ON transport_lab")
    columns = policies["columns"]
    rows = [dict(zip(columns, row, strict=True)) for row in policies["values"]]
    default = [row for row in rows if row["default"]]
    assert [(row["name"], row["duration"]) for row in default] == [
        ("autogen", RETENTION_HOURS[RETENTION])
    ]
