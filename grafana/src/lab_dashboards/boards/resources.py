"""Resources: CPU and memory of the runner and the device per series, and the device and
the WAN emulator over time."""

from typing import Any

from bench_runner.influx_schema import SummaryField, Tag
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import last, matches, per_iteration_ms
from lab_dashboards.panels import prometheus_timeseries, series_bars

UID = "resources"
COMMANDS_PER_SECOND = "sum by (transport) (rate(device_commands_total[$__rate_interval]))"
DELAYED_PER_SECOND = "rate(netem_delayer_accepted_packets_total[$__rate_interval])"
SCOPE = (*variables.RUN_SCOPE, matches(Tag.TRANSPORT, "transport"), matches(Tag.CLIENT, "client"))


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "Resources",
            "What each series costs in CPU and memory on the runner and on the "
            "device, and the device and the WAN emulator over time (Prometheus, "
            "scraped every 5 s).",
            time_from="now-6h",
        )
        .with_variable(variables.profile())
        .with_variable(variables.run())
        .with_variable(variables.transport())
        .with_variable(variables.client())
        .with_row(Row("Per series of the run"))
        .with_panel(
            series_bars(
                "How much CPU does one iteration cost? (ms of CPU per iteration)",
                "CPU time over the measured iterations divided by their number. Runner: the "
                "runner process and the child processes it waited for (the ssh client). "
                "Device: the whole device container (sshd, nginx, the device program), from "
                "its cgroup.",
                (
                    per_iteration_ms(SummaryField.RUNNER_CPU_S, "runner"),
                    per_iteration_ms(SummaryField.DEVICE_CPU_S, "device"),
                ),
                SCOPE,
                "ms",
                height=12,
            )
        )
        .with_panel(
            series_bars(
                "How much memory at the peak?",
                "Runner: peak resident memory of the runner and its children, sampled every "
                "second; device: peak of the container's memory (page cache included).",
                (
                    last(SummaryField.RUNNER_RSS_PEAK_BYTES, "runner"),
                    last(SummaryField.DEVICE_MEMORY_PEAK_BYTES, "device"),
                ),
                SCOPE,
                "bytes",
                height=12,
            )
        )
        .with_row(Row("Over time"))
        .with_panel(
            prometheus_timeseries(
                "How busy is the device? (CPU cores)",
                "Rate of the device container's CPU seconds (cgroup).",
                {"rate(device_container_cpu_seconds_total[$__rate_interval])": "device CPU"},
                "none",
            )
        )
        .with_panel(
            prometheus_timeseries(
                "How much memory does the device hold?",
                "The device container's memory (cgroup, page cache included).",
                {"device_container_memory_bytes": "device memory"},
                "bytes",
            )
        )
        .with_panel(
            prometheus_timeseries(
                "How many sessions does the device hold? (by transport)",
                "SSH shell sessions, NETCONF subsystem sessions, HTTPS client connections to "
                "nginx.",
                {"device_sessions_open": "{{transport}}"},
                "none",
            )
        )
        .with_panel(
            prometheus_timeseries(
                "How many commands does the device answer? (per second, by transport)",
                "Commands the device's engine executed.",
                {
                    COMMANDS_PER_SECOND: "{{transport}}",
                },
                "reqps",
            )
        )
        .with_panel(
            prometheus_timeseries(
                "How many packets does netem delay? (per second, by direction)",
                "Packets the nfq delayer accepted after their delay (empty with the tc engine, "
                "whose counters are the kernel's), and the packets it holds right now.",
                {
                    DELAYED_PER_SECOND: "delayed {{direction}}",
                    "netem_delayer_held_packets": "held {{direction}}",
                },
                "none",
            )
        )
        .with_panel(
            prometheus_timeseries(
                "Which profile is netem applying?",
                "The configured round-trip delay of the active profile (netem's /metrics).",
                {"netem_profile_rtt_seconds": "configured RTT"},
                "s",
            )
        )
    )
    return render(board)
