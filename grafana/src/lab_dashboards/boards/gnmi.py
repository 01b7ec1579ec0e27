"""gNMI: each mode's cost per client and profile against its round trips, the stream's update
delay and rate, and the device's gNMI server over time."""

from typing import Any

from bench_runner.influx_schema import Measurement, SummaryField, Tag, wire_p50_field
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import Column, Select, equals, last, matches, quoted, raw
from lab_dashboards.intervals import P50, P95, point, units, with_interval
from lab_dashboards.panels import (
    HALF,
    STREAM_MODES,
    not_streams,
    p50_against_rtt,
    prometheus_timeseries,
    series_bars,
    series_table,
    xy_points,
)

UID = "gnmi"
STREAM = STREAM_MODES[0]
SWEEP = (matches(Tag.SWEEP, "sweep"),)
GNMI = (*SWEEP, equals(Tag.TRANSPORT, "gnmi"))
SCOPE = (*GNMI, matches(Tag.PROFILE, "profile"), matches(Tag.CLIENT, "client"))
REQUESTS = (*SCOPE, *not_streams())
STREAMS = (*SCOPE, equals(Tag.MODE, STREAM))
MODEL = "round-trip model"
ONE_WAY = Column(f"last({quoted(SummaryField.VERIFIED_RTT_MS)}) / 2", "half the RTT")
"""The physics under an update's delay: the device's notification crosses the WAN once."""
RPCS_PER_SECOND = "sum by (rpc, code) (rate(device_gnmi_rpcs_total[$__rate_interval]))"
UPDATES_PER_SECOND = "sum by (mode) (rate(device_gnmi_updates_total[$__rate_interval]))"
DROPPED = "increase(device_gnmi_dropped_subscriptions_total[$__rate_interval])"


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "gNMI",
            "gNMI (gRPC over HTTP/2 and TLS, OpenConfig paths) on the device's own store: "
            "what each mode costs with each client at each profile of a sweep against the "
            "round trips it pays, how long a change takes to reach a STREAM subscriber and "
            "how many updates one stream delivers, and what the device's gNMI server "
            "answers. Runs with the gNMI modes (the nightly, smoke and every-mode plans).",
        )
        .with_variable(
            variables.sweep(
                (equals(Tag.TRANSPORT, "gnmi"),),
                description="the run id given to `bench-runner run` (a single run is its own "
                "sweep); only sweeps that measured gNMI",
            )
        )
        .with_variable(
            variables.narrowing(
                "profile",
                "Profile",
                Tag.PROFILE,
                GNMI,
                description="profiles of the sweep: one chart each",
                custom_all=False,
            )
        )
        .with_variable(
            variables.narrowing(
                "client",
                "Client library",
                Tag.CLIENT,
                GNMI,
                description="grpc-go (the floor, the runner's Go client), pygnmi, gnmi_cli",
            )
        )
        .with_row(Row("Requests: Get, Set, Subscribe ONCE and POLL"))
        .with_panel(
            series_bars(
                "gNMI at $profile: how long does each mode take? (p50 and p95, ms)",
                "Wall time of one iteration (every command, channel setup where the mode makes "
                "one), per mode · client version · parameters, each figure between the lighter "
                "bars of its 95 % interval. gnmi/stream is not here: its figure is an update's "
                "delay, not a request's time (below).",
                (*with_interval(P50, "p50"), *with_interval(P95, "p95")),
                REQUESTS,
                "ms",
                height=12,
            )
            .repeat("profile")
            .repeat_direction("h")
            .max_per_row(2)
        )
        .with_panel(
            p50_against_rtt(
                "How does each gNMI mode's p50 grow with the RTT? (ms)",
                "p50 against the verified RTT, one line per series across the profiles of the "
                "sweep: the slope is the round trips an iteration waits for. The small points "
                "above and below each p50 are the ends of its 95 % interval.",
                REQUESTS,
            )
        )
        .with_panel(
            series_table(
                "Round trips against the model (per profile)",
                "Round trips counted on the wire (TCP, TLS, the HTTP/2 preface and SETTINGS, "
                "then one per unary call), those the client is expected to pay and the "
                "protocol minimum; the p50 beside the round-trip model (the series' p50 at "
                "local plus its counted round trips times the added RTT; empty without a "
                "local run in the sweep); channels opened and commands carried per request. The "
                "p50 between the ends of its 95 % interval (CI low, CI high).",
                (
                    *with_interval(P50, "p50"),
                    last(SummaryField.RTT_MODEL_P50_MS, MODEL),
                    Column(
                        f"last({quoted(SummaryField.P50_MS)}) - "
                        f"last({quoted(SummaryField.RTT_MODEL_P50_MS)})",
                        "beyond the model",
                    ),
                    last(wire_p50_field("round_trips"), "counted on the wire"),
                    last(SummaryField.EXPECTED_ROUND_TRIPS, "expected"),
                    last(SummaryField.MIN_ROUND_TRIPS, "protocol minimum"),
                    last(SummaryField.CONNECTIONS_PER_ITERATION, "channels per iteration"),
                    last(SummaryField.COMMANDS_PER_REQUEST, "commands per request"),
                    last(SummaryField.TIME_STALLS, "TCP stalls"),
                ),
                REQUESTS,
                units({"p50": "ms"}) | {MODEL: "ms", "beyond the model": "ms"},
                group_by=(Tag.SERIES, Tag.PROFILE),
                height=12,
            )
        )
        .with_row(Row("Streaming telemetry: gnmi/stream"))
        .with_panel(
            xy_points(
                "How long does a change take to reach the subscriber? (update delay p50, ms)",
                "Per iteration the runner changes a description over a second channel; the "
                "delay is the client's receive time minus the update's device timestamp "
                "(the device and the runner share the host's clock). Its floor is one way "
                "across the WAN, half the RTT, plus the device's notification path. The small "
                "points above and below are the ends of the p50's 95 % interval.",
                Select(
                    (
                        raw(SummaryField.VERIFIED_RTT_MS, "verified RTT"),
                        *with_interval(P50, "update delay p50", point),
                    ),
                    Measurement.MODE_SUMMARY,
                    STREAMS,
                    (Tag.SERIES,),
                ),
                x_unit="ms",
                y_unit="ms",
                partition_by=(Tag.SERIES,),
                width=HALF,
                height=10,
            )
        )
        .with_panel(
            series_table(
                "Update delay and updates per second (per profile)",
                "Update delay over the measured iterations (p50, p95), half the verified RTT "
                "beside it, and what one STREAM SAMPLE subscription at the lab's 1 ms "
                "interval delivered per second at the client over a fixed window. Each delay "
                "between the ends of its 95 % interval (CI low, CI high).",
                (
                    *with_interval(P50, "delay p50"),
                    *with_interval(P95, "delay p95"),
                    ONE_WAY,
                    last(SummaryField.UPDATES_PER_SECOND, "updates/s"),
                    last(SummaryField.N, "n"),
                    last(SummaryField.ERRORS, "errors"),
                ),
                STREAMS,
                units({"delay p50": "ms", "delay p95": "ms"})
                | {"half the RTT": "ms", "updates/s": "none"},
                group_by=(Tag.SERIES, Tag.PROFILE),
                width=HALF,
            )
        )
        .with_row(Row("The device's gNMI server (Prometheus)"))
        .with_panel(
            prometheus_timeseries(
                "Which RPCs does the device answer, with which status? (per second)",
                "gNMI RPCs the device finished, by RPC (Capabilities, Get, Set, Subscribe) "
                "and gRPC status code: anything but OK is a client or the device failing.",
                {RPCS_PER_SECOND: "{{rpc}} {{code}}"},
                "reqps",
            )
        )
        .with_panel(
            prometheus_timeseries(
                "How many subscriptions does the device hold? (by mode)",
                "Active Subscribe RPCs by subscription mode (ONCE, POLL, STREAM).",
                {"sum by (mode) (device_gnmi_subscriptions)": "{{mode}}"},
                "none",
            )
        )
        .with_panel(
            prometheus_timeseries(
                "How many updates does the device send? (notifications per second, by mode)",
                "Notifications the device sent to subscribers.",
                {UPDATES_PER_SECOND: "{{mode}}"},
                "none",
            )
        )
        .with_panel(
            prometheus_timeseries(
                "Did the device drop a subscriber that fell behind?",
                "Subscriptions the device ended with ResourceExhausted because the client did "
                "not read fast enough (its send queue full): 0 in a healthy run; a measured "
                "stream whose subscription was dropped has failed iterations.",
                {DROPPED: "dropped subscriptions"},
                "none",
            )
        )
    )
    return render(board, profile_variable=None)
