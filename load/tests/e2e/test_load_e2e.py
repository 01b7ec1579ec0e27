"""After a real load run (load_e2e.sh): what it reported is what the sinks, the dashboard
and the files hold. Runs in the load test image on the isolated lab's network."""

import csv
import json
import os
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import requests

from transport_load.transports import TRANSPORTS

sys.path.insert(0, "/e2e")
from grafana_templating import Selection, interpolate

RESULTS = Path("/results")
LOAD_RUN = os.environ["LOAD_RUN"]
SWEEP_RUN = os.environ["SWEEP_RUN"]
WEB_RUN = os.environ["WEB_RUN"]
GNMI_RUN = os.environ["GNMI_RUN"]
WEB_LIMIT_S = float(os.environ["WEB_LIMIT_S"])
INFLUX = os.environ["INFLUX_URL"]
AUTH = (os.environ["INFLUX_USERNAME"], os.environ["INFLUX_PASSWORD"])
DB = os.environ.get("INFLUX_DB", "transport_lab")
PROMETHEUS = os.environ["PROMETHEUS_URL"]
DASHBOARD = json.loads(Path("/grafana/dashboards/load.json").read_text())
PROMETHEUS_WAIT_S = 60.0
SESSIONS = 200
"""load_e2e.sh's USERS: every transport's users at once (12 or 13 each)."""


def influx(query: str) -> list[dict[str, Any]]:
    response = requests.get(f"{INFLUX}/query", params={"db": DB, "q": query}, auth=AUTH, timeout=10)
    response.raise_for_status()
    result = response.json()["results"][0]
    assert "error" not in result, (query, result)
    rows = []
    for series in result.get("series", []):
        for values in series["values"]:
            rows.append(
                {**series.get("tags", {}), **dict(zip(series["columns"], values, strict=True))}
            )
    return rows


def prometheus(expression: str, since: float) -> list[dict[str, Any]]:
    deadline = time.monotonic() + PROMETHEUS_WAIT_S
    while True:
        response = requests.get(
            f"{PROMETHEUS}/api/v1/query_range",
            params={"query": expression, "start": since, "end": time.time(), "step": 5},
            timeout=10,
        )
        response.raise_for_status()
        data: list[dict[str, Any]] = response.json()["data"]["result"]
        if data or time.monotonic() > deadline:
            return data
        time.sleep(2)


def load_section(run: str) -> dict[str, Any]:
    section: dict[str, Any] = json.loads((RESULTS / run / "results.json").read_text())["load"]
    return section


@pytest.fixture(scope="module")
def load() -> dict[str, Any]:
    return load_section(LOAD_RUN)


def test_every_transport_ran_without_errors_over_two_workers(load: dict[str, Any]) -> None:
    by_transport = {row["transport"]: row for row in load["transports"]}
    assert set(by_transport) == set(TRANSPORTS)
    for key, row in by_transport.items():
        assert row["requests"] > 0, key
        assert row["failures"] == 0, (key, row)
        assert 0 < row["p50_ms"] <= row["p95_ms"] <= row["p99_ms"], (key, row)
        assert row["mode"] == TRANSPORTS[key].mode
        assert row["client"].startswith(TRANSPORTS[key].client + " ")
    assert load["totals"]["failures"] == 0
    assert load["locust"]["workers"] == 2
    assert load["locust"]["users_reached"] == load["locust"]["users"] == SESSIONS
    # the device's memory was sampled while all the sessions were held
    steady = load["resources"]["device_memory_steady"]
    assert steady["steady_samples"] >= 10, steady
    assert steady["slope_bytes_per_min"] is not None
    # users spread over the 3 devices of the inventory
    assert set(load["devices_loaded"]) == {"lab-r1", "lab-r2", "lab-r3"}
    assert load["profile"]["name"] == "local"
    assert load["profile"]["verified_rtt_ms"] is not None
    assert load["versions"]["locust"] != "unknown"


def test_locusts_own_files_agree(load: dict[str, Any]) -> None:
    files = RESULTS / LOAD_RUN
    for name in load["files"].values():
        assert (files / name).stat().st_size > 0, name
    with (files / "load" / "locust_stats_history.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) > 30  # full history: rows every second
    entries = json.loads((files / "load" / "stats.json").read_text())
    assert sum(entry["num_requests"] for entry in entries) == load["totals"]["requests"]
    assert sum(entry["num_failures"] for entry in entries) == 0


def test_influxdb_stored_what_was_reported(load: dict[str, Any]) -> None:
    rows = influx(
        'SELECT sum("requests") AS "requests", sum("failures") AS "failures", '
        f'count("requests") AS "points" FROM "load" WHERE "run_id" = \'{LOAD_RUN}\' '
        'GROUP BY "transport"'
    )
    stored = {row["transport"]: row for row in rows}
    for row in load["transports"]:
        assert stored[row["transport"]]["requests"] == row["requests"], row["transport"]
        assert stored[row["transport"]]["failures"] == 0
    [resources] = influx(
        f'SELECT count("users") AS "points" FROM "load_resources" WHERE "run_id" = \'{LOAD_RUN}\''
    )
    # A point that met a resolver or InfluxDB timeout under this load was spooled, and
    # load_e2e.sh's replay (after the sweep) stored it: stored = reported either way.
    sink = load["sinks"]["influxdb"]
    assert sink["delivered"] + sink["spooled"] == sink["lines_written"], sink
    assert sum(row["points"] for row in rows) + resources["points"] == sink["points"]


def test_prometheus_has_every_transport(load: dict[str, Any]) -> None:
    since = time.time() - 600
    series = prometheus(f'transport_lab_load_requests_total{{run_id="{LOAD_RUN}"}}', since)
    assert {s["metric"]["transport"] for s in series} == set(TRANSPORTS)
    assert prometheus(f'transport_lab_load_response_time_ms{{run_id="{LOAD_RUN}"}}', since)


def test_the_sweep_found_a_knee() -> None:
    sweep = load_section(SWEEP_RUN)["sweep"]
    assert [step["users"] for step in sweep["steps"]] == [1, 4]
    assert all(step["ramped"] and step["failures"] == 0 for step in sweep["steps"])
    assert sweep["knees"]["https-keepalive"]["users"] in (1, 4)


def test_gnmi_streams_deliver_updates_at_every_step_and_the_device_counts_them() -> None:
    """load_e2e.sh's gNMI sweep: 1 and 4 streams at 100 ms, then at 50 ms. Every step ramped,
    got updates and no failure (a stream ended, an RPC error, or an update stamped after it
    arrived on this one host clock: lag >= 0), and the device's own gauge counted exactly the
    streams the step held. Whether the device kept up is the sweep's finding, not a check."""
    load = load_section(GNMI_RUN)
    steps = load["sweep"]["steps"]
    assert [(step["users"], step["interval_ms"]) for step in steps] == [
        (1, 100.0),
        (4, 100.0),
        (1, 50.0),
        (4, 50.0),
    ]
    for step in steps:
        assert step["ramped"], step
        assert step["failures"] == 0, step
        assert step["delivered_updates_per_s"] > 0, step
        assert 0 <= step["p50_ms"] <= step["p95_ms"], step
        assert step["expected_updates_per_s"] == step["users"] * 1000 / step["interval_ms"]
        assert step["device_gnmi_subscriptions"] == step["users"], step
        assert step["device_gnmi_dropped_subscriptions"] == 0, step
    capacity = load["sweep"]["stream_capacity"]["gnmi-stream"]
    assert [row["interval_ms"] for row in capacity] == [100.0, 50.0]
    [row] = load["transports"]
    assert (row["transport"], row["mode"]) == ("gnmi-stream", "gnmi/stream")
    assert row["client"].startswith("grpcio ")
    assert load["versions"]["pygnmi"] == "0.8.15"


def test_a_sweep_during_an_influxdb_outage_is_stored_after_the_replay() -> None:
    """InfluxDB was stopped for the whole sweep: nothing delivered, every point spooled in the
    runner's format, and after ``bench-runner replay`` InfluxDB holds exactly what the sweep
    reported (per-second points, resources and steps)."""
    sweep = load_section(SWEEP_RUN)
    sink = sweep["sinks"]["influxdb"]
    assert sink["delivered"] == 0, sink
    assert sink["spooled"] == sink["lines_written"] >= sink["points"] > 0, sink
    assert sink["spool_files"], sink
    assert sink["errors"], sink
    where = f"WHERE \"run_id\" = '{SWEEP_RUN}'"
    [seconds] = influx(
        f'SELECT count("requests") AS "points", sum("requests") AS "requests" FROM "load" {where}'
    )
    [resources] = influx(f'SELECT count("users") AS "points" FROM "load_resources" {where}')
    [steps] = influx(f'SELECT count("requests") AS "points" FROM "load_step" {where}')
    assert seconds["requests"] == sweep["totals"]["requests"]
    assert steps["points"] == len(sweep["sweep"]["steps"])
    assert seconds["points"] + resources["points"] + steps["points"] == sink["points"]


def test_a_web_ui_run_without_a_run_time_is_stopped_by_the_lab_and_recorded() -> None:
    """Started as the form does with its run time cleared (load_e2e.sh waited for the master
    and the worker to exit): the lab stopped it at its limit and recorded it like any run."""
    web = load_section(WEB_RUN)
    ran_s = (
        datetime.fromisoformat(web["finished_at"]) - datetime.fromisoformat(web["started_at"])
    ).total_seconds()
    assert WEB_LIMIT_S <= ran_s < WEB_LIMIT_S + 30, ran_s
    [row] = web["transports"]
    assert row["transport"] == "https-keepalive"
    assert row["requests"] > 0
    assert row["failures"] == 0
    assert web["locust"]["users_reached"] == 2
    assert web["sinks"]["influxdb"]["points"] > 0


def _panels() -> list[dict[str, Any]]:
    found = []
    for panel in DASHBOARD["panels"]:
        found.extend(p for p in [panel, *panel.get("panels", [])] if p["type"] != "row")
    return found


@pytest.mark.parametrize("panel", _panels(), ids=lambda panel: panel["title"][:50])
def test_every_load_panel_shows_data(panel: dict[str, Any]) -> None:
    variables = DASHBOARD["templating"]["list"]
    for target in panel["targets"]:
        text = target.get("expr") or target["query"]
        # a sweep's steps are on the sweep run, everything else on the load run
        run = SWEEP_RUN if "load_step" in text else LOAD_RUN
        selections = {}
        for variable in variables:
            query = interpolate(
                variable["query"], "influxdb", variables, selections, DASHBOARD["time"]["from"]
            )
            options = tuple(str(row["value"]) for row in influx(query))
            assert options, (variable["name"], query)
            if variable["name"] == "run_id":
                assert run in options
                selections["run_id"] = Selection((run,), options)
            else:
                selections[variable["name"]] = Selection((), options, all_selected=True)
        datasource = panel["datasource"]["type"]
        resolved = interpolate(text, datasource, variables, selections, DASHBOARD["time"]["from"])
        if datasource == "prometheus":
            assert prometheus(resolved, time.time() - 600), (panel["title"], resolved)
        else:
            assert influx(resolved), (panel["title"], resolved)
