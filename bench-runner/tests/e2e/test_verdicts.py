"""The slow night's verdicts where they are published (``make test-verdicts`` drives
verdicts.sh on the host: quiet nights of a short plan, then one with the device's commands
delayed, then this in the runner's container with the run id set; skipped without it,
failed under CI)."""

import json
import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench_runner.results import SCHEMA_VERSION
from bench_runner.settings import Settings
from prerequisites import missing

SLOW_RUN_ID = os.environ.get("VERDICTS_SLOW_RUN_ID")
REPORTED_POINTS = int(os.environ.get("VERDICTS_POINTS") or "0")
DELAYED = {"https/keep-alive", "ssh/reuse-conn"}
"""Modes whose commands go through the device's command engine, which DEVICE_COMMAND_DELAY_MS
delays; netconf/reuse-session's RPCs do not."""
QUIET_VERDICTS = {"unchanged", "within_noise"}
PROMETHEUS_URL = os.environ.get("PROMETHEUS_URL", "http://prometheus:9090")


@pytest.fixture(autouse=True)
def _runs_made_by_the_script() -> None:
    if not SLOW_RUN_ID:
        missing("needs the verdict runs: make test-verdicts")


def influx(query: str) -> list[dict[str, Any]]:
    settings = Settings()
    password = settings.influx_password.get_secret_value() if settings.influx_password else ""
    response = httpx.get(
        f"{settings.influx_url}/query",
        timeout=15.0,
        params={"db": settings.influx_db, "q": query},
        auth=(settings.influx_username or "", password),
    )
    response.raise_for_status()
    series: list[dict[str, Any]] = response.json()["results"][0].get("series", [])
    return series


def prometheus(query: str) -> list[dict[str, Any]]:
    """The query's result once Prometheus has scraped the Pushgateway (up to 60 s)."""
    result: list[dict[str, Any]] = []
    for _ in range(60):
        response = httpx.get(f"{PROMETHEUS_URL}/api/v1/query", params={"query": query})
        response.raise_for_status()
        result = response.json()["data"]["result"]
        if result:
            break
        time.sleep(1)
    return result


def results() -> dict[str, Any]:
    path = Path(Settings().results_dir, str(SLOW_RUN_ID), "results.json")
    document: dict[str, Any] = json.loads(path.read_text())
    return document


def test_only_the_delayed_modes_regressed() -> None:
    run = results()
    assert run["schema_version"] == SCHEMA_VERSION
    verdicts = {mode["mode"]: mode["verdict"] for mode in run["modes"]}
    assert set(verdicts) == {*DELAYED, "netconf/reuse-session"}
    for name in DELAYED:
        verdict = verdicts[name]
        assert verdict["verdict"] == "regression", (name, verdict)
        assert verdict["change_pct"] >= verdict["threshold_pct"], verdict
        assert verdict["robust_z"] is None or verdict["robust_z"] > 3, verdict
    # Quiet: judged unchanged, or within noise when its interval overlaps the baseline's.
    assert verdicts["netconf/reuse-session"]["verdict"] in QUIET_VERDICTS, verdicts


def test_influxdb_holds_the_verdicts_and_every_reported_point() -> None:
    where = f"WHERE run_id = '{SLOW_RUN_ID}'"
    [series] = influx(f'SELECT "mode", "verdict" FROM "verdict" {where}')
    stored = {row[1]: row[2] for row in series["values"]}
    assert stored.pop("netconf/reuse-session") in QUIET_VERDICTS
    assert stored == dict.fromkeys(DELAYED, "regression")
    counts = [
        influx(f'SELECT count("{field}") FROM "{measurement}" {where}')[0]["values"][0][1]
        for measurement, field in (
            ("run", "title"),
            ("iteration", "wall_ms"),
            ("mode_summary", "n"),
            ("verdict", "verdict"),
        )
    ]
    assert sum(counts) == REPORTED_POINTS, counts


def test_prometheus_has_the_regressions_and_fires_the_alert() -> None:
    flagged = prometheus(f'transport_bench_mode_regression{{run_id="{SLOW_RUN_ID}"}} == 1')
    assert {sample["metric"]["mode"] for sample in flagged} == DELAYED
    alerts = prometheus(f'ALERTS{{alertname="BenchModeRegressed",run_id="{SLOW_RUN_ID}"}}')
    assert {sample["metric"]["mode"] for sample in alerts} == DELAYED
