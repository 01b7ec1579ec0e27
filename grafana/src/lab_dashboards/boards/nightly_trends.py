"""Nightly trends: each series over time per profile, the runs and the regression verdicts
as annotations, the verdicts of each run as a table."""

from typing import Any

from bench_runner.influx_schema import Measurement, RunField, SummaryField, Tag, VerdictField
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render, verdicts_annotation
from lab_dashboards.influxql import Column, Select, last, matches, quoted, raw
from lab_dashboards.intervals import P50, P95, point, with_interval
from lab_dashboards.panels import HALF, KEY_EXCHANGE_TAGS, influx_timeseries, series_table
from lab_dashboards.precision import precision_table

UID = "nightly-trends"
PROFILE = (matches(Tag.PROFILE, "profile"),)
SCOPE = (
    "$timeFilter",
    *PROFILE,
    matches(Tag.TRANSPORT, "transport"),
    matches(Tag.MODE, "mode"),
    matches(Tag.CLIENT, "client"),
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
        .with_variable(
            variables.mode(("$timeFilter", *PROFILE, matches(Tag.TRANSPORT, "transport")))
        )
        .with_variable(
            variables.client(
                (
                    "$timeFilter",
                    *PROFILE,
                    matches(Tag.TRANSPORT, "transport"),
                    matches(Tag.MODE, "mode"),
                )
            )
        )
        .with_variable(
            variables.narrowing(
                "series",
                "Series",
                Tag.SERIES,
                SCOPE,
                description="mode · client version · parameters: one chart each",
                custom_all=False,
            )
        )
        .with_row(Row("Run after run"))
        .with_panel(
            influx_timeseries(
                "$series",
                "p50 and p95 run after run, one point per run (at the end of the series' "
                "measurement), each in the band of its 95 % confidence interval: a step "
                "between two runs whose bands overlap is within noise (no p95 band for a run of "
                "fewer than about 72 iterations). A p95 that moves while the p50 stays is "
                "jitter, contention or a retransmission.",
                Select(
                    (*with_interval(P50, "p50", point), *with_interval(P95, "p95", point)),
                    Measurement.MODE_SUMMARY,
                    (*SCOPE, matches(Tag.SERIES, "series")),
                    (Tag.SERIES,),
                ),
                "ms",
                alias="$col",
                height=9,
                width=HALF,
            )
            .repeat("series")
            .repeat_direction("h")
            .max_per_row(2)
        )
        .with_row(Row("Every series"))
        .with_panel(precision_table(SCOPE, group_by=(Tag.RUN_ID, Tag.SERIES), width=HALF))
        .with_panel(
            series_table(
                "Which key exchange did each series negotiate, in how many runs?",
                "One row per series and the key exchange its connections negotiated (the SSH "
                "kex or the TLS group): a series in two rows changed it (a new device image, a "
                "client upgrade), and its steps in the charts above may be that change.",
                (Column(f"count({quoted(SummaryField.N)})", "runs"),),
                SCOPE,
                {"runs": "none"},
                group_by=KEY_EXCHANGE_TAGS,
                height=10,
                width=HALF,
            )
        )
        .with_panel(
            influx_timeseries(
                "Was the latency what the profile says, every run? (verified RTT, ms)",
                "The RTT each series' probe measured before it was measured; the runner "
                "refuses a series off the profile by more than max(10 %, 1 ms).",
                Select(
                    (raw(SummaryField.VERIFIED_RTT_MS, "verified RTT"),),
                    Measurement.MODE_SUMMARY,
                    SCOPE,
                    (Tag.SERIES,),
                ),
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
                "earlier nights of its plan (regression, improved, unchanged, within_noise: its "
                "interval overlaps the baseline's, new, insufficient_history; docs/verdicts.md), "
                "the change, "
                "its robust z, the threshold it had to reach and the night a lasting shift "
                "began.",
                (
                    last(VerdictField.VERDICT, "verdict"),
                    last(VerdictField.CHANGE_PCT, "change %"),
                    last(VerdictField.ROBUST_Z, "robust z"),
                    last(VerdictField.THRESHOLD_PCT, "threshold %"),
                    last(VerdictField.MEDIAN_MS, "median"),
                    last(VerdictField.BASELINE_MEDIAN_MS, "baseline median"),
                    last(VerdictField.NIGHTS, "earlier nights"),
                    last(VerdictField.CHANGEPOINT_RUN_ID, "shift since"),
                ),
                SCOPE,
                {"median": "ms", "baseline median": "ms"},
                group_by=(Tag.RUN_ID, Tag.SERIES),
                measurement=Measurement.VERDICT,
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
                    last(RunField.MODES, "series measured"),
                    last(RunField.ERRORS, "failed iterations"),
                    last(RunField.DURATION_S, "duration"),
                    last(RunField.COMMIT, "commit"),
                    last(RunField.OK, "ok"),
                ),
                ("$timeFilter", *PROFILE),
                {"duration": "s"},
                group_by=(Tag.RUN_ID, Tag.PLAN),
                measurement=Measurement.RUN,
                height=10,
            )
        )
    )
    return render(board, annotations=(verdicts_annotation("profile"),))
