"""What a load run writes: InfluxDB points, Prometheus metrics, and results.json's ``load``
section (bench-runner/SCHEMA.md, "load")."""

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench_runner.influx_schema import (
    LOAD_STEP_FIGURES,
    LoadField,
    LoadResourcesField,
    LoadStepField,
    Measurement,
    Tag,
)
from bench_runner.sinks.line_protocol import Point
from transport_load import context, knee, stream_capacity
from transport_load.sinks import Sample, exposition
from transport_load.state import SAMPLE_TIME, LabState
from transport_load.stats import Bucket, Key, merged, summarize
from transport_load.transports import TRANSPORTS

if TYPE_CHECKING:
    from locust.env import Environment

SCHEMA_VERSION = 1


def _run_tags(state: LabState) -> dict[str, str]:
    return {
        Tag.RUN_ID: state.run_id,
        Tag.KIND: state.kind,
        Tag.PROFILE: state.profile,
        Tag.DEVICES: str(len(state.inventory.devices)),
    }


def _users_at(state: LabState, second: int) -> int | None:
    for sample in state.resources:
        if int(sample[SAMPLE_TIME]) >= second:
            return int(sample[LoadResourcesField.USERS])
    return None


def second_points(state: LabState, horizon: int) -> list[Point]:
    """One ``load`` point per second and (transport, mode, client) before ``horizon`` that
    is new or changed since it was last written (a late report rewrites the same point:
    same series and timestamp), and one ``load_resources`` point per new sample."""
    points = []
    for second, key, bucket in state.collector.settled(horizon):
        if state.written.get((second, key)) == bucket.requests:
            continue
        state.written[(second, key)] = bucket.requests
        transport, mode, client = key
        points.append(
            Point(
                Measurement.LOAD,
                {**_run_tags(state), Tag.TRANSPORT: transport, Tag.MODE: mode, Tag.CLIENT: client},
                {
                    LoadField.REQUESTS: bucket.requests,
                    LoadField.FAILURES: bucket.failures,
                    LoadField.BYTES: bucket.bytes,
                    LoadField.MEAN_MS: bucket.mean_ms,
                    LoadField.P50_MS: bucket.percentile(0.50),
                    LoadField.P95_MS: bucket.percentile(0.95),
                    LoadField.P99_MS: bucket.percentile(0.99),
                    LoadField.MAX_MS: bucket.max_ms,
                    LoadField.USERS: _users_at(state, second),
                },
                second * 10**9,
            )
        )
    written_resources = state.written.get((-1, ("", "", "")), 0)
    for sample in state.resources[written_resources:]:
        users = LoadResourcesField.USERS
        fields: dict[str, float | int | None] = {
            key: value for key, value in sample.items() if key not in (SAMPLE_TIME, users)
        }
        fields[users] = int(sample[users])
        timestamp_ns = int(sample[SAMPLE_TIME] * 1e9)
        points.append(Point(Measurement.LOAD_RESOURCES, _run_tags(state), fields, timestamp_ns))
    state.written[(-1, ("", "", ""))] = len(state.resources)
    return points


def stored_points(state: LabState) -> int:
    """Distinct points the run's series hold in InfluxDB (a rewrite replaces a point)."""
    return len(state.written) - 1 + state.written.get((-1, ("", "", "")), 0) if state.written else 0


PROM_HELP = {
    "transport_lab_load_users": ("gauge", "Locust users running"),
    "transport_lab_load_requests_total": ("counter", "Operations done, per transport and mode"),
    "transport_lab_load_failures_total": ("counter", "Operations failed, per transport and mode"),
    "transport_lab_load_response_time_ms": (
        "gauge",
        "Response time percentiles over the last 10 s, per transport and mode",
    ),
    "transport_lab_load_generator_cpu_percent": ("gauge", "Load generator CPU, % of one core"),
}


def prometheus_text(state: LabState, environment: "Environment") -> str:
    samples = []
    base = {"run_id": state.run_id, "profile": state.profile, "kind": state.kind}
    runner = environment.runner
    samples.append(
        Sample("transport_lab_load_users", base, float(runner.user_count if runner else 0))
    )
    totals: dict[Key, Bucket] = state.collector.window(0, float("inf"))
    recent = state.collector.window(max(state.collector.seconds, default=0) - 10, float("inf"))
    for key, bucket in sorted(totals.items()):
        labels = {**base, "transport": key[0], "mode": key[1], "client": key[2]}
        samples.append(Sample("transport_lab_load_requests_total", labels, float(bucket.requests)))
        samples.append(Sample("transport_lab_load_failures_total", labels, float(bucket.failures)))
        window = recent.get(key)
        for quantile in (0.5, 0.95, 0.99):
            value = window.percentile(quantile) if window else None
            if value is not None:
                samples.append(
                    Sample(
                        "transport_lab_load_response_time_ms",
                        {**labels, "quantile": str(quantile)},
                        float(value),
                    )
                )
    if state.resources:
        samples.append(
            Sample(
                "transport_lab_load_generator_cpu_percent",
                base,
                float(state.resources[-1].get(LoadResourcesField.GENERATOR_CPU_PERCENT, 0.0)),
            )
        )
    return exposition(samples, PROM_HELP)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _resources_between(state: LabState, start: float, end: float) -> dict[str, float | None]:
    window = [s for s in state.resources if start <= s[SAMPLE_TIME] < end]

    def series(name: str) -> list[float]:
        return [s[name] for s in window if name in s]

    memory = series(LoadResourcesField.DEVICE_MEMORY_BYTES)
    generator_memory = series(LoadResourcesField.GENERATOR_MEMORY_BYTES)
    return {
        LoadStepField.DEVICE_CPU_CORES: _mean(series(LoadResourcesField.DEVICE_CPU_CORES)),
        LoadStepField.DEVICE_MEMORY_BYTES: _mean(memory),
        LoadStepField.DEVICE_MEMORY_FIRST_BYTES: memory[0] if memory else None,
        LoadStepField.DEVICE_MEMORY_LAST_BYTES: memory[-1] if memory else None,
        LoadStepField.DEVICE_MEMORY_PEAK_BYTES: max(memory) if memory else None,
        LoadStepField.GENERATOR_CPU_PERCENT: _mean(
            series(LoadResourcesField.GENERATOR_CPU_PERCENT)
        ),
        LoadStepField.GENERATOR_MEMORY_PEAK_BYTES: max(generator_memory, default=None),
    }


def memory_trend(state: LabState) -> dict[str, float | int | None]:
    """The device's memory while every user runs (the samples at the run's most users):
    least-squares slope in bytes per minute and the first and last minute's means; a leak is
    a slope that stays positive at constant load."""
    users, memory = LoadResourcesField.USERS, LoadResourcesField.DEVICE_MEMORY_BYTES
    most = max((s[users] for s in state.resources), default=0.0)
    steady = [
        (s[SAMPLE_TIME], s[memory])
        for s in state.resources
        if s[users] == most and most > 0 and memory in s
    ]
    if len(steady) < 10:
        return {"steady_samples": len(steady), "slope_bytes_per_min": None}
    n = len(steady)
    mean_t = sum(t for t, _ in steady) / n
    mean_m = sum(m for _, m in steady) / n
    var = sum((t - mean_t) ** 2 for t, _ in steady)
    slope = sum((t - mean_t) * (m - mean_m) for t, m in steady) / var if var else 0.0
    first = [m for t, m in steady if t < steady[0][0] + 60]
    last = [m for t, m in steady if t >= steady[-1][0] - 60]
    return {
        "steady_samples": n,
        "slope_bytes_per_min": slope * 60,
        "first_minute_mean_bytes": sum(first) / len(first),
        "last_minute_mean_bytes": sum(last) / len(last),
    }


def _transport_rows(window: dict[Key, Bucket], seconds: float) -> list[dict[str, Any]]:
    rows = []
    for key, bucket in sorted(window.items()):
        rows.append(
            {"transport": key[0], "mode": key[1], "client": key[2], **summarize(bucket, seconds)}
        )
    return rows


def sweep_section(state: LabState) -> dict[str, Any]:
    steps = []
    for step in state.steps:
        start = step.ramped if step.ramped is not None else step.started
        end = step.ended if step.ended is not None else start
        # whole seconds fully inside the window
        first, last = int(start) + 1, int(end)
        seconds = max(last - first, 0)
        window = state.collector.window(first, last)
        bucket = merged(b for k, b in window.items() if k[0] == step.transport)
        figures: dict[str, Any] = {
            "transport": step.transport,
            LoadStepField.USERS: step.users,
            "ramped": step.ramped is not None,
            LoadStepField.WINDOW_S: seconds,
            **summarize(bucket, seconds),
            **_resources_between(state, first, last),
        }
        if step.interval_ms is not None:
            figures.update(_stream_figures(state, step.interval_ms, figures, first, last))
        steps.append(figures)
    knees = {}
    for transport in dict.fromkeys(s["transport"] for s in steps if "interval_ms" not in s):
        curve = [
            knee.Step(int(s["users"] or 0), float(s["ops_per_s"] or 0.0), float(s["p50_ms"] or 0.0))
            for s in steps
            if s["transport"] == transport
        ]
        found = knee.find_knee(curve)
        knees[transport] = (
            None
            if found is None
            else {
                "users": found.users,
                "ops_per_s": found.ops_per_s,
                "p50_ms": found.p50_ms,
                "saturated_at_users": found.saturated_at_users,
            }
        )
    section: dict[str, Any] = {"steps": steps, "knees": knees}
    streams = [s for s in steps if "interval_ms" in s]
    if streams:
        section["stream_capacity"] = _stream_capacity(streams)
    return section


def _stream_step(figures: dict[str, Any]) -> stream_capacity.StreamStep:
    updates = int(figures["requests"]) - int(figures["failures"])
    seconds = int(figures[LoadStepField.WINDOW_S])
    return stream_capacity.StreamStep(
        int(figures[LoadStepField.USERS]),
        float(figures["interval_ms"]),
        updates / seconds if seconds > 0 else 0.0,
        figures["p95_ms"] if updates > 0 else None,
        int(figures["failures"]),
    )


def _stream_figures(
    state: LabState, interval_ms: float, figures: dict[str, Any], first: int, last: int
) -> dict[str, Any]:
    """A gnmi-stream step's figures: every request is an update (or a stream that failed),
    so the updates delivered a second; against them the updates owed, and the device's own count
    of subscriptions, notifications sent and subscriptions dropped over the window."""
    stream = _stream_step({**figures, "interval_ms": interval_ms})
    window = [s for s in state.device_gnmi if first <= s[SAMPLE_TIME] < last]
    device: dict[str, float | None] = {
        "device_gnmi_subscriptions": None,
        "device_gnmi_updates_per_s": None,
        "device_gnmi_dropped_subscriptions": None,
    }
    if window:
        device["device_gnmi_subscriptions"] = window[-1].get(context.GNMI_SUBSCRIPTIONS)
        start, end = window[0], window[-1]
        elapsed = end[SAMPLE_TIME] - start[SAMPLE_TIME]
        if elapsed > 0 and context.GNMI_UPDATES in start and context.GNMI_UPDATES in end:
            sent = end[context.GNMI_UPDATES] - start[context.GNMI_UPDATES]
            device["device_gnmi_updates_per_s"] = sent / elapsed
        if context.GNMI_DROPPED in start and context.GNMI_DROPPED in end:
            device["device_gnmi_dropped_subscriptions"] = (
                end[context.GNMI_DROPPED] - start[context.GNMI_DROPPED]
            )
    return {
        "interval_ms": interval_ms,
        "delivered_updates_per_s": stream.delivered_per_s,
        "expected_updates_per_s": stream.expected_per_s,
        "delivered_ratio": stream.delivered_ratio,
        "behind": stream.behind,
        **device,
    }


def _stream_capacity(steps: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per transport and interval: the most streams held and where they fell behind; each
    step marked ``knee`` if it is where its interval fell behind."""
    found: dict[str, list[dict[str, Any]]] = {}
    for transport in dict.fromkeys(s["transport"] for s in steps):
        own = [s for s in steps if s["transport"] == transport]
        rows = stream_capacity.capacities([_stream_step(s) for s in own])
        for step in own:
            step["knee"] = any(
                row.interval_ms == step["interval_ms"]
                and row.behind_at_streams == step[LoadStepField.USERS]
                for row in rows
            )
        found[transport] = [
            {
                "interval_ms": row.interval_ms,
                "held_streams": row.held_streams,
                "behind_at_streams": row.behind_at_streams,
            }
            for row in rows
        ]
    return found


def step_points(state: LabState, section: dict[str, Any]) -> list[Point]:
    points = []
    for number, step in enumerate(section["steps"]):
        at_knee = step.get("knee", False) or (
            (section["knees"].get(step["transport"]) or {}).get("users") == step["users"]
        )
        fields: dict[str, float | int | bool] = {
            name: step[name]
            for name in LOAD_STEP_FIGURES
            if isinstance(step.get(name), int | float)
        }
        fields[LoadStepField.KNEE] = at_knee
        points.append(
            Point(
                Measurement.LOAD_STEP,
                {**_run_tags(state), Tag.TRANSPORT: step["transport"], Tag.STEP: f"{number:02d}"},
                fields,
                int(state.steps[number].ended or time_now()) * 10**9,
            )
        )
    return points


def time_now() -> float:
    return datetime.now(UTC).timestamp()


def load_section(state: LabState, environment: "Environment") -> dict[str, Any]:
    options = environment.parsed_options
    started = state.started_at or datetime.now(UTC)
    finished = datetime.now(UTC)
    first_second = min(state.collector.seconds, default=int(started.timestamp()))
    last_second = max(state.collector.seconds, default=first_second)
    duration = max(last_second - first_second + 1, 1)
    whole = state.collector.window(0, float("inf"))
    section: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "kind": state.kind,
        "engine": "locust",
        "started_at": started.isoformat(),
        "finished_at": finished.isoformat(),
        **state.context,
        "command": state.command,
        "locust": {
            "users": getattr(options, "num_users", None),
            "users_reached": int(
                max((s[LoadResourcesField.USERS] for s in state.resources), default=0)
            ),
            "spawn_rate": getattr(options, "spawn_rate", None),
            "run_time_s": getattr(options, "run_time", None),
            "workers": state.workers_seen or None,
            "processes": getattr(options, "processes", None),
        },
        "transports": _transport_rows(whole, duration),
        "devices_loaded": {
            name: {"requests": counts[0], "failures": counts[1]}
            for name, counts in sorted(state.collector.devices.items())
        },
        "resources": {
            **_resources_between(state, 0, float("inf")),
            "device_memory_steady": memory_trend(state),
        },
        "totals": summarize(merged(whole.values()), duration),
        "files": {
            "csv_stats": "load/locust_stats.csv",
            "csv_history": "load/locust_stats_history.csv",
            "csv_failures": "load/locust_failures.csv",
            "html": "load/report.html",
            "json": "load/stats.json",
        },
    }
    if state.kind == "sweep":
        sweep = sweep_section(state)
        section["sweep"] = sweep
        if state.influx is not None:
            state.influx.write(step_points(state, sweep))
            section.setdefault("_step_points", len(sweep["steps"]))
    step_points_written = section.pop("_step_points", 0)
    if state.influx is not None:
        tally = state.influx.tally
        section["sinks"] = {
            "influxdb": {
                "points": stored_points(state) + step_points_written,
                "lines_written": tally.points,
                "delivered": tally.delivered,
                "spooled": tally.spooled,
                "spool_files": tally.spool_files,
                "errors": tally.errors,
            }
        }
    if state.pushgateway is not None:
        section.setdefault("sinks", {})["pushgateway"] = {
            "pushes": state.pushgateway.pushes,
            "failures": state.pushgateway.failures,
            "spooled_to": state.pushgateway.spooled_to,
            "job": "transport_lab_load",
            "grouping_key": state.pushgateway.grouping_key,
        }
    return section


def write_results(state: LabState, environment: "Environment") -> Path:
    """``results/<run>/results.json``: a load run's own file, or the ``load`` section added
    to the results.json already there (the runner's)."""
    directory = state.results_dir / state.run_id
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "results.json"
    document: dict[str, Any] = {}
    if path.exists():
        document = json.loads(path.read_text(encoding="utf-8"))
    document.setdefault("run_id", state.run_id)
    document.setdefault("lab_commit", os.environ.get("LAB_COMMIT", "unknown"))
    if state.plan:
        document.setdefault("plan", state.plan)
    document["load"] = load_section(state, environment)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    partial.replace(path)
    return path


__all__ = ["TRANSPORTS", "load_section", "prometheus_text", "second_points", "write_results"]
