"""An adaptive run's stops where they are published (``make test-precision`` drives
precision.sh on the host: the device's commands jittered on purpose, one run of
precision-plan.yaml, then this in the runner's container with the run id set; skipped
without it, failed under CI)."""

import csv
import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench_runner.settings import Settings
from prerequisites import missing

RUN_ID = os.environ.get("PRECISION_RUN_ID")
QUIET = "gnmi/reuse-conn"
NOISY = "https/keep-alive"
"""Its command goes through the device's command engine, which DEVICE_COMMAND_JITTER_MS
jitters; gNMI's Gets do not."""


@pytest.fixture(autouse=True)
def _run_made_by_the_script() -> None:
    if not RUN_ID:
        missing("needs the adaptive run: make test-precision")


def run_dir() -> Path:
    return Path(Settings().results_dir, str(RUN_ID))


def modes() -> dict[str, dict[str, Any]]:
    document = json.loads((run_dir() / "results.json").read_text())
    return {mode["mode"]: mode for mode in document["modes"]}


def test_the_quiet_mode_stops_early_as_precise() -> None:
    quiet = modes()[QUIET]
    precision = quiet["precision"]
    assert quiet["ok"], quiet["error_messages"]
    assert precision["rule"] == "adaptive"
    assert (precision["stop_reason"], precision["precise"]) == ("precise", True)
    assert precision["min_iterations"] <= quiet["iterations"] < precision["max_iterations"]
    assert precision["achieved_half_width_pct"] <= precision["target_half_width_pct"]
    stats = quiet["stats"]
    assert stats["p50_ci_low_ms"] <= stats["p50_ms"] <= stats["p50_ci_high_ms"]


def test_the_noisy_mode_runs_to_its_cap_and_says_so() -> None:
    noisy = modes()[NOISY]
    precision = noisy["precision"]
    assert noisy["ok"], noisy["error_messages"]  # imprecise is not failed
    assert (precision["stop_reason"], precision["precise"]) == ("cap", False)
    assert precision["achieved_half_width_pct"] > precision["target_half_width_pct"]
    assert noisy["iterations"] >= precision["min_iterations"]
    # The cap ends the loop after the iteration that passes it: the measured time is at
    # least the cap, and an iteration (at most 2.6 s here) more at most.
    measured_s = sum(noisy["samples_ms"]) / 1000
    assert measured_s >= precision["time_cap_s"] * 0.9  # the loop's own time lies outside


def test_modes_csv_and_influxdb_say_why_each_stopped() -> None:
    with (run_dir() / "modes.csv").open(newline="") as rows:
        stops = {row["mode"]: row["stop_reason"] for row in csv.DictReader(rows)}
    assert stops == {QUIET: "precise", NOISY: "cap"}
    settings = Settings()
    password = settings.influx_password.get_secret_value() if settings.influx_password else ""
    response = httpx.get(
        f"{settings.influx_url}/query",
        timeout=15.0,
        params={
            "db": settings.influx_db,
            "q": 'SELECT "mode", "stop_reason", "precise", "p50_ci_low_ms", "p50_ci_high_ms" '
            f"FROM \"mode_summary\" WHERE run_id = '{RUN_ID}'",
        },
        auth=(settings.influx_username or "", password),
    )
    response.raise_for_status()
    [series] = response.json()["results"][0]["series"]
    stored = {row[1]: row[2:] for row in series["values"]}
    assert {mode: values[:2] for mode, values in stored.items()} == {
        QUIET: ["precise", 1],
        NOISY: ["cap", 0],
    }
    for low, high in (values[2:] for values in stored.values()):
        assert low is not None
        assert high is not None
        assert low <= high
