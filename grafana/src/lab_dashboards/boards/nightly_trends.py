"""Nightly trends: each series over time per profile, the runs and the regression verdicts
as annotations, the verdicts of each run as a table."""

from typing import Any

from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render, verdicts_annotation
from lab_dashboards.influxql import Select, last, matches, raw
from lab_dashboards.panels import influx_timeseries, series_table
from lab_dashboards.schema import MODE_SUMMARY, RUN, VERDICT

UID = "nightly-trends"
PROFILE = (matches("profile", "profile"),)
SCOPE = (
    "$timeFilter",
    *PROFILE,
    matches("transport", "transport"),
    matches("mode", "mode"),
    matches("client", "client"),
)


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "Nightly trends",
            "Every run in the time range, series by series: a new client release, "
            "device image or kernel shows as a step. A new library version is a new "
            "series (its name carries the version). Runs are annotated.",
            time_from="now-30d",
        )
        .with_variable(variables.profile())
        .with_variable(variables.transport(("$timeFilter", *PROFILE)))
        .with_variable(variables.mode(("$timeFilter", *PROFILE, matches("transport", "transport"))))
        .with_variable(
            variables.client(
                (
                    "$timeFilter",
                    *PROFILE,
                    matches("transport", "transport"),
                    matches("mode", "mode"),
                )
            )
        )
        .with_row(Row("Run after run"))
        .with_panel(
            influx_timeseries(
                "How has each series' p50 moved run after run? (ms)",
                "One point per run (at the end of the series' measurement), one line per series.",
                Select((raw("p50_ms", "p50"),), MODE_SUMMARY, SCOPE, ("series",)),
                "ms",
                height=12,
            )
        )
        .with_panel(
            influx_timeseries(
                "How has each series' p95 moved? (ms)",
                "The tail: a p95 that moves while the p50 stays is jitter, contention or a "
                "retransmission.",
                Select((raw("p95_ms", "p95"),), MODE_SUMMARY, SCOPE, ("series",)),
                "ms",
                height=10,
                width=12,
            )
        )
        .with_panel(
            influx_timeseries(
                "Was the latency what the profile says, every run? (verified RTT, ms)",
                "The RTT each series' probe measured before it was measured; the runner "
                "refuses a series off the profile by more than max(10 %, 1 ms).",
                Select((raw("verified_rtt_ms", "verified RTT"),), MODE_SUMMARY, SCOPE, ("series",)),
                "ms",
                height=10,
                width=12,
            )
        )
        .with_row(Row("Verdicts"))
        .with_panel(
            series_table(
                "Which series regressed against the earlier nights?",
                "Each run's verdict per series: its median against the median and MAD of the "
                "earlier nights of its plan (regression, improved, unchanged, new, "
                "insufficient_history; bench-runner README, Regression verdicts), the change, "
                "its robust z, the threshold it had to reach and the night a lasting shift "
                "began.",
                (
                    last("verdict", "verdict"),
                    last("change_pct", "change %"),
                    last("robust_z", "robust z"),
                    last("threshold_pct", "threshold %"),
                    last("median_ms", "median"),
                    last("baseline_median_ms", "baseline median"),
                    last("nights", "earlier nights"),
                    last("changepoint_run_id", "shift since"),
                ),
                SCOPE,
                {"median": "ms", "baseline median": "ms"},
                group_by=("run_id", "series"),
                measurement=VERDICT,
                height=10,
            )
        )
        .with_row(Row("Runs"))
        .with_panel(
            series_table(
                "Runs in the time range",
                "Every run of the profile: plan, measured series, failed iterations, how long "
                "it took, the lab commit.",
                (
                    last("modes", "series measured"),
                    last("errors", "failed iterations"),
                    last("duration_s", "duration"),
                    last("commit", "commit"),
                    last("ok", "ok"),
                ),
                ("$timeFilter", *PROFILE),
                {"duration": "s"},
                group_by=("run_id", "plan"),
                measurement=RUN,
                height=10,
            )
        )
    )
    return render(board, annotations=(verdicts_annotation("profile"),))
