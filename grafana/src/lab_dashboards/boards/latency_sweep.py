"""Latency sweep: one `bench-runner run` over several profiles, each series' p50 against
the verified RTT, beside the round-trip model ``p50(local) + round trips x RTT``."""

from typing import Any

from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import Column, Select, last, matches, raw
from lab_dashboards.panels import FULL, THIRD, series_table, xy_points
from lab_dashboards.schema import MODE_SUMMARY, SERIES_TAG

UID = "latency-sweep"
SWEEP = (matches("sweep", "sweep"),)
SCOPE = (*SWEEP, matches("transport", "transport"), matches("client", "client"))
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
            variables.choice(
                "sweep",
                "Sweep",
                "sweep",
                newest_first=True,
                description="the run id given to `bench-runner run`; its runs are "
                "<sweep>-<profile>",
            )
        )
        .with_variable(variables.transport(SWEEP))
        .with_variable(variables.client((*SWEEP, matches("transport", "transport"))))
        .with_variable(
            variables.narrowing(
                "series",
                "Series",
                SERIES_TAG,
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
                "local run in the sweep.",
                Select(
                    (
                        raw("verified_rtt_ms", "verified RTT"),
                        raw("p50_ms", "p50"),
                        raw("rtt_model_p50_ms", MODEL),
                    ),
                    MODE_SUMMARY,
                    (*SWEEP, matches(SERIES_TAG, "series")),
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
            xy_points(
                "How does each series' p50 grow with the RTT?",
                "p50 against the verified RTT, one line per series across the profiles of the "
                "sweep.",
                Select(
                    (raw("verified_rtt_ms", "verified RTT"), raw("p50_ms", "p50")),
                    MODE_SUMMARY,
                    SCOPE,
                    (SERIES_TAG,),
                ),
                x_unit="ms",
                y_unit="ms",
                partition_by=(SERIES_TAG,),
                width=FULL,
                height=12,
            )
        )
        .with_panel(
            series_table(
                "How far is each p50 from its round trips? (per profile)",
                "The model's inputs and the difference: p50 minus the model is what the "
                "latency costs beyond round trips at that profile.",
                (
                    last("verified_rtt_ms", "verified RTT"),
                    last("added_rtt_ms", "added RTT"),
                    last("p50_ms", "p50"),
                    last("rtt_model_p50_ms", MODEL),
                    Column('last("p50_ms") - last("rtt_model_p50_ms")', "beyond the model"),
                    last("wire_round_trips_p50", "round trips counted"),
                    last("expected_round_trips", "round trips expected"),
                ),
                SCOPE,
                {
                    name: "ms"
                    for name in ("verified RTT", "added RTT", "p50", MODEL, "beyond the model")
                },
                group_by=(SERIES_TAG, "profile"),
                height=14,
            )
        )
    )
    return render(board, profile_variable=None)
