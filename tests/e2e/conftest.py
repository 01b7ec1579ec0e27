"""End-to-end fixtures: the real lab (compose.yaml + compose.test.yaml), the real runner.

These tests run inside the bench-runner container on the lab network (see `make test-e2e`),
so the device, netem, InfluxDB, Pushgateway and Prometheus are reached by their service names.
Each profile is benchmarked once per session and shared by every test.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

RESULTS_DIR = Path(os.environ.get("RESULTS_DIR", "/results"))
INFLUX_URL = os.environ["INFLUX_URL"]
INFLUX_DB = os.environ["INFLUX_DB"]
INFLUX_AUTH = (os.environ["INFLUX_USERNAME"], os.environ["INFLUX_PASSWORD"])
PROMETHEUS_URL = os.environ["PROMETHEUS_URL"]
ITERATIONS = 20
WARMUP = 2


@dataclass(frozen=True)
class BenchRun:
    profile: str
    run_id: str
    exit_code: int
    output: str
    results: dict[str, Any]

    def mode(self, name: str) -> dict[str, Any]:
        return next(m for m in self.results["modes"] if m["mode"] == name)


def bench(profile: str, *options: str, name: str = "e2e", iterations: int = ITERATIONS,
          warmup: int = WARMUP) -> BenchRun:
    """One `bench-runner run` at `profile` (default plan unless `options` say otherwise)."""
    run_id = f"{name}-{profile}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
    proc = subprocess.run(
        ["bench-runner", "run", "--profile", profile, "--run-id", run_id,
         "--iterations", str(iterations), "--warmup", str(warmup), *options],
        capture_output=True, text=True, timeout=1200, check=False,
    )
    print(proc.stdout[-4000:], proc.stderr[-4000:], sep="\n")
    results_file = RESULTS_DIR / run_id / "results.json"
    assert results_file.exists(), f"no results file for {run_id}: {proc.stderr[-2000:]}"
    return BenchRun(profile, run_id, proc.returncode, proc.stdout + proc.stderr,
                    json.loads(results_file.read_text()))


@pytest.fixture(scope="session")
def local_run() -> BenchRun:
    return bench("local")


@pytest.fixture(scope="session")
def regional_run(local_run: BenchRun) -> BenchRun:
    # Depends on local_run so the two never overlap and local's p50 is known for the bounds.
    return bench("regional")


def influx_query(q: str) -> list[dict[str, Any]]:
    """Runs an InfluxQL query and returns its series (empty list when there are none)."""
    resp = httpx.get(f"{INFLUX_URL}/query", params={"db": INFLUX_DB, "q": q}, auth=INFLUX_AUTH, timeout=10)
    resp.raise_for_status()
    result = resp.json()["results"][0]
    assert "error" not in result, result
    series: list[dict[str, Any]] = result.get("series", [])
    return series


def prom_query(expr: str) -> list[dict[str, Any]]:
    resp = httpx.get(f"{PROMETHEUS_URL}/api/v1/query", params={"query": expr}, timeout=10)
    resp.raise_for_status()
    body = resp.json()
    assert body["status"] == "success", body
    data: list[dict[str, Any]] = body["data"]["result"]
    return data


def prom_wait(expr: str, expected: int, timeout: float = 60.0) -> list[dict[str, Any]]:
    """Prometheus scrapes the Pushgateway every 5 s: poll until the series arrive."""
    deadline = time.monotonic() + timeout
    while True:
        data = prom_query(expr)
        if len(data) >= expected or time.monotonic() > deadline:
            return data
        time.sleep(2)
