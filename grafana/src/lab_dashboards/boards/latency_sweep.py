"""Latency sweep: one `bench-runner run` over several profiles, each series' p50 against
the verified RTT, beside the round-trip model ``p50(local) + round trips x RTT``."""

from typing import Any

from bench_runner.influx_schema import Measurement, SummaryField, Tag, wire_p50_field
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import Column, Select, last, matches, quoted, raw
from lab_dashboards.intervals import P50, point, units, with_interval
from lab_dashboards.panels import THIRD, p50_against_rtt, series_table, xy_points

UID = "latency-sweep"
SWEEP = (matches(Tag.SWEEP, "sweep"),)
SCOPE = (*SWEEP, matches(Tag.TRANSPORT, "transport"), matches(Tag.CLIENT, "client"))
MODEL = "round-trip model"


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "Latency sweep",
            "One sweep (a `bench-runner run` over several profiles, e.g. "
            "`--plan latency-sweep`): where each series' cost is round trips of the "
            "WAN and where it is something else.",
            time_from="now-30d",
        )
        .with_variable(
            variables.sweep(
                description="the run id given to `bench-runner run`; its runs are "
                "<sweep>-<profile>",
            )
        )
        .with_variable(variables.transport(SWEEP))
        .with_variable(variables.client((*SWEEP, matches(Tag.TRANSPORT, "transport"))))
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
        .with_row(Row("Each series against the round-trip model"))
        .with_panel(
            xy_points(
                "$series",
                "p50 at each profile of the sweep (points) against the RTT the runner verified "
                "on the mode's port, and the round-trip model (line): the same series' p50 at "
                "local plus the round trips counted on the wire times the delay netem added. "
                "Points on the line: the latency is all round trips. Above it: time that is "
                "not round trips (TCP waiting on itself, CPU, bandwidth). No line without a "
                "local run in the sweep. gnmi/stream's p50 is an update's delay, which grows by "
                "half the RTT (one way), not by round trips. The small points above and below "
                "each p50 are the ends of its 95 % confidence interval.",
                Select(
                    (
                        raw(SummaryField.VERIFIED_RTT_MS, "verified RTT"),
                        *with_interval(P50, "p50", point),
                        raw(SummaryField.RTT_MODEL_P50_MS, MODEL),
                    ),
                    Measurement.MODE_SUMMARY,
                    (*SWEEP, matches(Tag.SERIES, "series")),
                ),
                x_unit="ms",
                y_unit="ms",
                lines=(MODEL,),
                width=THIRD,
                height=9,
            )
            .repeat("series")
            .repeat_direction("h")
            .max_per_row(3)
        )
        .with_row(Row("Every series"))
        .with_panel(
            p50_against_rtt(
                "How does each series' p50 grow with the RTT?",
                "p50 against the verified RTT, one line per series across the profiles of the "
                "sweep, the ends of each p50's 95 % interval as small points above and below it.",
                SCOPE,
            )
        )
        .with_panel(
            series_table(
                "How far is each p50 from its round trips? (per profile)",
                "The model's inputs and the difference: p50 minus the model is what the "
                "latency costs beyond round trips at that profile. The p50 between the ends of "
                "its 95 % interval: a difference inside that span is within noise.",
                (
                    last(SummaryField.VERIFIED_RTT_MS, "verified RTT"),
                    last(SummaryField.ADDED_RTT_MS, "added RTT"),
                    *with_interval(P50, "p50"),
                    last(SummaryField.RTT_MODEL_P50_MS, MODEL),
                    Column(
                        f"last({quoted(SummaryField.P50_MS)}) - "
                        f"last({quoted(SummaryField.RTT_MODEL_P50_MS)})",
                        "beyond the model",
                    ),
                    last(wire_p50_field("round_trips"), "round trips counted"),
                    last(SummaryField.EXPECTED_ROUND_TRIPS, "round trips expected"),
                ),
                SCOPE,
                units({"p50": "ms"})
                | {name: "ms" for name in ("verified RTT", "added RTT", MODEL, "beyond the model")},
                group_by=(Tag.SERIES, Tag.PROFILE),
                height=14,
            )
        )
    )
    return render(board, profile_variable=None)
