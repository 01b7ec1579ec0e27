"""Load: Locust runs and sweeps (load/, README.md "Load"): throughput, percentiles and
errors per transport over a run, and against concurrency with the device's and the load
generator's CPU and memory beside them."""

from typing import Any

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
from lab_dashboards.schema import LOAD, LOAD_RESOURCES, LOAD_STEP
from lab_dashboards.variables import choice, narrowing

UID = "load"
RUN = (matches("run_id", "run_id"),)
SCOPE = (*RUN, matches("transport", "transport"))
BY_TRANSPORT = ("transport",)
PROM_SCOPE = 'run_id=~"$run_id", transport=~"$transport"'


def _against_users(title: str, description: str, field: str, name: str, unit: str) -> Any:
    return xy_points(
        title,
        description,
        Select((raw("users", "users"), raw(field, name)), LOAD_STEP, SCOPE, BY_TRANSPORT),
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
                "run_id",
                newest_first=True,
                measurement=LOAD,
                description="a `make load` or `make sweep` run; generated ids sort newest first",
            )
        )
        .with_variable(
            narrowing(
                "transport",
                "Transport",
                "transport",
                RUN,
                measurement=LOAD,
                description="the load transport: the user class (load/README.md)",
            )
        )
        .with_row(Row("Over the run (one point per second)"))
        .with_panel(
            influx_timeseries(
                "How many operations a second does each transport do? (ops/s)",
                "Operations completed in each second, summed over every user, worker and device.",
                Select((raw("requests", "ops/s"),), LOAD, SCOPE, BY_TRANSPORT),
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
                Select((raw("failures", "failures/s"),), LOAD, SCOPE, BY_TRANSPORT),
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
                    (raw("p50_ms", "p50"), raw("p95_ms", "p95"), raw("p99_ms", "p99")),
                    LOAD,
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
                Select((raw("device_cpu_cores", "device CPU cores"),), LOAD_RESOURCES, RUN),
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
                Select((raw("device_memory_bytes", "device memory"),), LOAD_RESOURCES, RUN),
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
                    (raw("generator_cpu_percent", "load generator CPU %"),), LOAD_RESOURCES, RUN
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
                Select((raw("users", "users"),), LOAD_RESOURCES, RUN),
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
                "ops_per_s",
                "ops/s",
                "ops",
            )
        )
        .with_panel(
            _against_users(
                "How does the tail grow with users? (p99 against users, ms)",
                "p99 of each step's operations after its ramp-up.",
                "p99_ms",
                "p99",
                "ms",
            )
        )
        .with_panel(
            _against_users(
                "How much of the device does each step use? (CPU cores against users)",
                "The device container's mean CPU over the step.",
                "device_cpu_cores",
                "device CPU cores",
                "none",
            )
        )
        .with_panel(
            _against_users(
                "How much memory does the device hold at each step? (bytes against users)",
                "The device container's mean memory over the step.",
                "device_memory_bytes",
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
                    raw("users", "users"),
                    raw("ops_per_s", "ops/s"),
                    raw("p50_ms", "p50"),
                    raw("p95_ms", "p95"),
                    raw("p99_ms", "p99"),
                    raw("failures", "errors"),
                    raw("device_cpu_cores", "device CPU"),
                    raw("generator_cpu_percent", "generator CPU %"),
                    raw("knee", "knee"),
                ),
                SCOPE,
                {"p50": "ms", "p95": "ms", "p99": "ms", "ops/s": "ops"},
                group_by=BY_TRANSPORT,
                measurement=LOAD_STEP,
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
