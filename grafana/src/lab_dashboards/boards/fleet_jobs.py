"""Fleet jobs: one fleet sweep (`make fleet-sweep`, docs/fleet-jobs.md): Nornir or Ansible
across the fleet at each devices x workers step, the job's time against the model
``ceil(devices / workers)`` x per-device time, the client's CPU and the knee where it, not the
network, sets the job's time."""

from typing import Any

from bench_runner.influx_schema import (
    FleetJobField,
    FleetKneeField,
    Measurement,
    Tag,
)
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import Select, last, matches, raw
from lab_dashboards.intervals import Interval, point, units, with_interval
from lab_dashboards.panels import FULL, series_table, xy_points

UID = "fleet-jobs"
SWEEP = (matches(Tag.SWEEP, "sweep"),)
SELECTED = (*SWEEP, matches(Tag.TOOL, "tool"), matches(Tag.CONNECTION, "connection"))
SCOPE = (*SELECTED, matches(Tag.PROFILE, "profile"))
MODEL = Interval(
    FleetJobField.PREDICTED_WALL_S, FleetJobField.PREDICTED_LOW_S, FleetJobField.PREDICTED_HIGH_S
)
PER_DEVICE_P50 = Interval(
    FleetJobField.PER_DEVICE_P50_MS,
    FleetJobField.PER_DEVICE_P50_CI_LOW_MS,
    FleetJobField.PER_DEVICE_P50_CI_HIGH_MS,
)
PER_DEVICE_P95 = Interval(
    FleetJobField.PER_DEVICE_P95_MS,
    FleetJobField.PER_DEVICE_P95_CI_LOW_MS,
    FleetJobField.PER_DEVICE_P95_CI_HIGH_MS,
)
LINES = (Tag.SERIES, FleetJobField.DEVICES)
"""An XY chart against workers: one line per series and devices count."""


def _against_workers(title: str, description: str, *columns: Any, unit: str) -> Any:
    return (
        xy_points(
            title,
            description,
            Select(
                (
                    raw(FleetJobField.WORKERS, "workers"),
                    *columns,
                    raw(FleetJobField.DEVICES, "devices"),
                ),
                Measurement.FLEET_JOB,
                SCOPE,
                (Tag.SERIES,),
            ),
            x_unit="none",
            y_unit=unit,
            partition_by=LINES,
            lines=("model",),
            width=FULL,
            height=10,
        )
        .repeat("profile")
        .repeat_direction("v")
    )


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "Fleet jobs",
            "One fleet sweep (`make fleet-sweep`): Nornir or Ansible across the lab's fleet at "
            "each devices x workers step and profile, the job's time beside the model "
            "ceil(devices / workers) x one device's time, the client's CPU and the knee where "
            "it, not the network, sets the job's time.",
            time_from="now-30d",
        )
        .with_variable(
            variables.choice(
                "sweep",
                "Sweep",
                Tag.SWEEP,
                newest_first=True,
                measurement=Measurement.FLEET_JOB,
                description="a `bench-runner fleet-sweep`: its steps are runs "
                "<sweep>-<profile>-d<devices>-w<workers>",
            )
        )
        .with_variable(
            variables.narrowing(
                "tool",
                "Tool",
                Tag.TOOL,
                SWEEP,
                measurement=Measurement.FLEET_JOB,
                description="nornir or ansible",
            )
        )
        .with_variable(
            variables.narrowing(
                "connection",
                "Connection",
                Tag.CONNECTION,
                (*SWEEP, matches(Tag.TOOL, "tool")),
                measurement=Measurement.FLEET_JOB,
                description="the tool's connection plugin: netmiko, scrapli, ncclient; "
                "network_cli, netconf, uri",
            )
        )
        .with_variable(
            variables.narrowing(
                "profile",
                "Profile",
                Tag.PROFILE,
                SELECTED,
                measurement=Measurement.FLEET_JOB,
                description="netem profile of the steps: one chart each",
                custom_all=False,
            )
        )
        .with_row(Row("The job's time"))
        .with_panel(
            xy_points(
                "At $profile: how long does the job take against devices? (s, a line per "
                "series and workers count)",
                "The job's wall time, from the tool's start to its end (its program's start-up "
                "left out), at each devices count of the sweep, one line per series (tool, "
                "connection, operation) and workers count (Nornir's num_workers, Ansible's "
                "forks). While the client has CPU to spare, a line grows in steps of one "
                "device's time every `workers` devices.",
                Select(
                    (
                        raw(FleetJobField.DEVICES, "devices"),
                        raw(FleetJobField.WALL_S, "job time"),
                        raw(FleetJobField.WORKERS, "workers"),
                    ),
                    Measurement.FLEET_JOB,
                    SCOPE,
                    (Tag.SERIES,),
                ),
                x_unit="none",
                y_unit="s",
                partition_by=(Tag.SERIES, FleetJobField.WORKERS),
                width=FULL,
                height=10,
            )
            .repeat("profile")
            .repeat_direction("v")
        )
        .with_panel(
            _against_workers(
                "At $profile: does the job follow the model? (s, measured points, the model's "
                "line)",
                "Measured wall time (points) against the model: ceil(devices / workers) rounds "
                "of the per-device p50 (line), the small points above and below it the rounds "
                "times the ends of the p50's 95 % interval (none under 6 devices). A point "
                "above the interval is slower than the model by more than the step's own "
                "noise; inside it, the step follows the model. One line per series and devices "
                "count, across the workers counts.",
                raw(FleetJobField.WALL_S, "job time"),
                *with_interval(MODEL, "model", point),
                unit="s",
            )
        )
        .with_row(Row("The client's CPU and the knee"))
        .with_panel(
            _against_workers(
                "At $profile: how busy is the client? (share of the cores the tool can use)",
                "The tool's CPU (its process and children, start-up included) over the job's "
                "wall time, per core the tool can use: the runner container's cores, one for "
                "Nornir (its threads share one interpreter lock). At 80 % and above the client "
                "counts as saturated; the knee is the fewest workers at which it is saturated "
                "and the job slower than the model's interval (the table beside).",
                raw(FleetJobField.CLIENT_UTILISATION, "client CPU"),
                unit="percentunit",
            )
        )
        .with_panel(
            series_table(
                "Where does the client's CPU start to set the job's time? (the knee)",
                "Per series, profile and devices count: `knee` at the workers count named, "
                "`not reached` (every step judged, none both slower than the model's interval "
                "and saturated), `undetermined` (a step without the per-device interval, fewer "
                "than 6 devices, or failed: no knee is called where the intervals cannot tell "
                "the step from the model). docs/fleet-jobs.md says how to read it.",
                (
                    last(FleetKneeField.STATUS, "knee"),
                    last(FleetKneeField.KNEE_WORKERS, "at workers"),
                    last(FleetKneeField.WALL_S, "job time"),
                    last(FleetKneeField.PREDICTED_HIGH_S, "model at most"),
                    last(FleetKneeField.CLIENT_UTILISATION, "client CPU"),
                    last(FleetKneeField.STEPS, "steps"),
                    last(FleetKneeField.REASON, "why"),
                ),
                SCOPE,
                {"job time": "s", "model at most": "s", "client CPU": "percentunit"},
                group_by=(Tag.SERIES, Tag.PROFILE, Tag.DEVICES),
                measurement=Measurement.FLEET_KNEE,
                height=8,
            )
        )
        .with_row(Row("Each device's time"))
        .with_panel(
            _against_workers(
                "At $profile: how long does each device take? (per-device p50 and p95, ms)",
                "Each device's own time in the job (Nornir: its task in its worker; Ansible: "
                "its tasks' durations summed): the p50 and p95 over the step's devices, the "
                "small points the ends of their 95 % intervals (a p50's needs 6 devices, a "
                "p95's 72). It grows with workers when the client or the device is the "
                "bottleneck; the network's share stays the same.",
                *with_interval(PER_DEVICE_P50, "per device p50", point),
                *with_interval(PER_DEVICE_P95, "per device p95", point),
                unit="ms",
            )
        )
        .with_row(Row("Every step"))
        .with_panel(
            series_table(
                "Every step, with its context",
                "One row per step (its run id): the tool and its version, devices, workers, "
                "wall time, the model with its interval and the verdict, the per-device p50 "
                "with its interval, the RTT verified on every device before the job (median), "
                "the client's CPU seconds and share, the device's CPU, the lab's commit.",
                (
                    last(FleetJobField.DEVICES, "devices"),
                    last(FleetJobField.WORKERS, "workers"),
                    last(FleetJobField.WALL_S, "job time"),
                    *with_interval(MODEL, "model"),
                    last(FleetJobField.MODEL_VERDICT, "vs model"),
                    *with_interval(PER_DEVICE_P50, "per device p50"),
                    last(FleetJobField.VERIFIED_RTT_MS, "verified RTT"),
                    last(FleetJobField.CLIENT_CPU_S, "client CPU s"),
                    last(FleetJobField.CLIENT_UTILISATION, "client CPU"),
                    last(FleetJobField.DEVICE_CPU_S, "device CPU s"),
                    last(FleetJobField.COMMIT, "commit"),
                ),
                SCOPE,
                units({"model": "s", "per device p50": "ms"})
                | {
                    "job time": "s",
                    "verified RTT": "ms",
                    "client CPU s": "s",
                    "client CPU": "percentunit",
                    "device CPU s": "s",
                },
                group_by=(Tag.SERIES, Tag.CLIENT_VERSION, Tag.PROFILE, Tag.RUN_ID),
                measurement=Measurement.FLEET_JOB,
                height=12,
            )
        )
    )
    return render(board, runs=(Measurement.FLEET_JOB, FleetJobField.TITLE))
