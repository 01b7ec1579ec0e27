"""Load: Locust runs and sweeps (load/, docs/load.md): throughput, percentiles and
errors per transport over a run, and against concurrency with the device's and the load
generator's CPU and memory beside them."""

from typing import Any

from bench_runner.influx_schema import (
    LoadField,
    LoadResourcesField,
    LoadStepField,
    Measurement,
    Tag,
)
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import Select, matches, raw
from lab_dashboards.panels import (
    FULL,
    HALF,
    influx_timeseries,
    prometheus_timeseries,
    series_table,
    xy_points,
)
from lab_dashboards.variables import choice, narrowing

UID = "load"
RUN = (matches(Tag.RUN_ID, "run_id"),)
SCOPE = (*RUN, matches(Tag.TRANSPORT, "transport"))
BY_TRANSPORT = (Tag.TRANSPORT,)
PROM_SCOPE = 'run_id=~"$run_id", transport=~"$transport"'


def _against_users(title: str, description: str, field: str, name: str, unit: str) -> Any:
    return xy_points(
        title,
        description,
        Select(
            (raw(LoadStepField.USERS, "users"), raw(field, name)),
            Measurement.LOAD_STEP,
            SCOPE,
            BY_TRANSPORT,
        ),
        x_unit="none",
        y_unit=unit,
        partition_by=BY_TRANSPORT,
        log_x=True,
    )


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "Load",
            "Locust load runs and sweeps against the lab's devices: one point per second per "
            "transport (InfluxDB measurement load), the device's and the load generator's "
            "resources every second (load_resources), and a sweep's steps taken after each "
            "ramp-up (load_step).",
            time_from="now-24h",
        )
        .with_variable(
            choice(
                "run_id",
                "Run",
                Tag.RUN_ID,
                newest_first=True,
                measurement=Measurement.LOAD,
                description="a `make load` or `make sweep` run; generated ids sort newest first",
            )
        )
        .with_variable(
            narrowing(
                "transport",
                "Transport",
                Tag.TRANSPORT,
                RUN,
                measurement=Measurement.LOAD,
                description="the load transport: the user class (load/README.md)",
            )
        )
        .with_row(Row("Over the run (one point per second)"))
        .with_panel(
            influx_timeseries(
                "How many operations a second does each transport do? (ops/s)",
                "Operations completed in each second, summed over every user, worker and device.",
                Select((raw(LoadField.REQUESTS, "ops/s"),), Measurement.LOAD, SCOPE, BY_TRANSPORT),
                "ops",
                alias="$tag_transport",
                width=HALF,
            )
        )
        .with_panel(
            influx_timeseries(
                "How many operations fail? (per second)",
                "Failed operations in each second: a connection, an answer or a status that is "
                "not the device's answer on success.",
                Select(
                    (raw(LoadField.FAILURES, "failures/s"),), Measurement.LOAD, SCOPE, BY_TRANSPORT
                ),
                "none",
                alias="$tag_transport",
                width=HALF,
            )
        )
        .with_panel(
            influx_timeseries(
                "How long does one operation take? (p50, p95, p99 per second, ms)",
                "Percentiles of the operations that ended in each second, exact to 0.5 % "
                "(histogram of 3 significant digits merged across workers).",
                Select(
                    (
                        raw(LoadField.P50_MS, "p50"),
                        raw(LoadField.P95_MS, "p95"),
                        raw(LoadField.P99_MS, "p99"),
                    ),
                    Measurement.LOAD,
                    SCOPE,
                    BY_TRANSPORT,
                ),
                "ms",
                alias="$tag_transport $col",
                height=12,
            )
        )
        .with_panel(
            influx_timeseries(
                "How busy is the device under this many users? (CPU cores)",
                "The device container's CPU (cgroup), sampled every second by the Locust "
                "master, beside the users running.",
                Select(
                    (raw(LoadResourcesField.DEVICE_CPU_CORES, "device CPU cores"),),
                    Measurement.LOAD_RESOURCES,
                    RUN,
                ),
                "none",
                alias="$col",
                width=HALF,
            )
        )
        .with_panel(
            influx_timeseries(
                "Does the device's memory stay flat? (bytes)",
                "The device container's memory (cgroup, page cache included) every second: a "
                "leak is a line that keeps rising at constant load.",
                Select(
                    (raw(LoadResourcesField.DEVICE_MEMORY_BYTES, "device memory"),),
                    Measurement.LOAD_RESOURCES,
                    RUN,
                ),
                "bytes",
                alias="$col",
                width=HALF,
            )
        )
        .with_panel(
            influx_timeseries(
                "Is the load generator the bottleneck? (CPU, % of one core)",
                "Every Locust process together (master and workers, from their heartbeats): "
                "near 100 % per process, the generator limits the figures, not the device.",
                Select(
                    (raw(LoadResourcesField.GENERATOR_CPU_PERCENT, "load generator CPU %"),),
                    Measurement.LOAD_RESOURCES,
                    RUN,
                ),
                "percent",
                alias="$col",
                width=HALF,
            )
        )
        .with_panel(
            influx_timeseries(
                "How many users are running?",
                "Locust users at each second (all transports).",
                Select((raw(LoadResourcesField.USERS, "users"),), Measurement.LOAD_RESOURCES, RUN),
                "none",
                alias="$col",
                width=HALF,
            )
        )
        .with_row(Row("Against concurrency (a sweep's steps, after each ramp-up)"))
        .with_panel(
            _against_users(
                "Where does each transport's throughput bend? (ops/s against users)",
                "Throughput of each step against its users, log scale: the knee (maximal "
                "throughput per ms of p50) is marked in the steps table.",
                LoadStepField.OPS_PER_S,
                "ops/s",
                "ops",
            )
        )
        .with_panel(
            _against_users(
                "How does the tail grow with users? (p99 against users, ms)",
                "p99 of each step's operations after its ramp-up.",
                LoadStepField.P99_MS,
                "p99",
                "ms",
            )
        )
        .with_panel(
            _against_users(
                "How much of the device does each step use? (CPU cores against users)",
                "The device container's mean CPU over the step.",
                LoadStepField.DEVICE_CPU_CORES,
                "device CPU cores",
                "none",
            )
        )
        .with_panel(
            _against_users(
                "How much memory does the device hold at each step? (bytes against users)",
                "The device container's mean memory over the step.",
                LoadStepField.DEVICE_MEMORY_BYTES,
                "device memory",
                "bytes",
            )
        )
        .with_panel(
            series_table(
                "Every step of the sweep",
                "One row per step: users, throughput, percentiles, errors, the device's and "
                "the load generator's CPU; knee = true at each transport's knee.",
                (
                    raw(LoadStepField.USERS, "users"),
                    raw(LoadStepField.OPS_PER_S, "ops/s"),
                    raw(LoadStepField.P50_MS, "p50"),
                    raw(LoadStepField.P95_MS, "p95"),
                    raw(LoadStepField.P99_MS, "p99"),
                    raw(LoadStepField.FAILURES, "errors"),
                    raw(LoadStepField.DEVICE_CPU_CORES, "device CPU"),
                    raw(LoadStepField.GENERATOR_CPU_PERCENT, "generator CPU %"),
                    raw(LoadStepField.KNEE, "knee"),
                ),
                SCOPE,
                {"p50": "ms", "p95": "ms", "p99": "ms", "ops/s": "ops"},
                group_by=BY_TRANSPORT,
                measurement=Measurement.LOAD_STEP,
                height=12,
                width=FULL,
            )
        )
        .with_row(Row("Prometheus (pushed by the Locust master every 5 s)"))
        .with_panel(
            prometheus_timeseries(
                "Operations a second per transport (Prometheus)",
                "Rate of the operation counter the master pushes to the Pushgateway.",
                {
                    "sum by (transport) (rate(transport_lab_load_requests_total{"
                    + PROM_SCOPE
                    + "}[$__rate_interval]))": "{{transport}}"
                },
                "ops",
            )
        )
        .with_panel(
            prometheus_timeseries(
                "p99 of the last 10 s per transport (Prometheus, ms)",
                "The master's p99 over the operations of the last 10 seconds.",
                {
                    "max by (transport) (transport_lab_load_response_time_ms{"
                    + PROM_SCOPE
                    + ', quantile="0.99"})': "{{transport}}"
                },
                "ms",
            )
        )
    )
    return render(board, profile_variable=None)
