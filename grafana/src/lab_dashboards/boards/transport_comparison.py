"""Transport comparison: one run, every series side by side (the lab's home dashboard)."""

from typing import Any

from bench_runner.influx_schema import (
    IterationField,
    Measurement,
    SummaryField,
    Tag,
    phase_p50_field,
    wire_p50_field,
)
from bench_runner.phases import PHASES
from bench_runner.wire.model import FIELDS as WIRE_FIELDS
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import Select, last, matches, raw
from lab_dashboards.intervals import P50, P95, SPEEDUP, units, with_interval
from lab_dashboards.panels import (
    FULL,
    HALF,
    RATIO_UNIT,
    handshake_tables,
    not_streams,
    prometheus_table,
    series_bars,
    series_table,
    time_split_bars,
    xy_points,
)
from lab_dashboards.precision import mark_noise, precision_table, ratio_columns

UID = "transport-comparison"
VS_BASELINE = "vs baseline"
PUSHED = 'profile="$profile", run_id="$run_id", transport=~"$transport", client=~"$client"'
"""The chosen run's series on the Pushgateway."""
SERIES_LABELS = (
    "mode",
    "client",
    "client_version",
    "framing",
    "reply_bytes",
    "bulk_size",
    "encoding",
)


def _latest(metric: str) -> str:
    return f"last_over_time({metric}{{{PUSHED}}}[1y])"


def _round_trips(metric: str) -> str:
    """``metric`` (seconds) in round trips of the verified RTT, as the recording rule
    transport_bench:mode_p50_round_trips:ratio makes the p50's (none without added delay).
    The three columns of a row keep the same labels this way: the rule's series would carry
    its name besides."""
    return (
        f"{_latest(metric)} / ({_latest('transport_bench_mode_verified_rtt_seconds')} > 0) "
        f"and ({_latest('transport_bench_mode_configured_rtt_seconds')} > 0)"
    )


SCOPE = (*variables.RUN_SCOPE, matches(Tag.TRANSPORT, "transport"), matches(Tag.CLIENT, "client"))
REQUESTS = (*SCOPE, *not_streams())
"""Series whose figure is a request's time."""


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "Transport comparison",
            "One run of the lab: what each transport, mode and client library costs "
            "under the run's latency profile, and why.",
        )
        .with_variable(variables.profile())
        .with_variable(variables.run())
        .with_variable(variables.transport())
        .with_variable(variables.client())
        .with_row(Row("What each series costs"))
        .with_panel(
            series_bars(
                "How long does one iteration take? (p50 and p95, ms)",
                "Wall time of one iteration (every command of the run, connection setup where "
                "the mode makes one), median and 95th percentile over the measured iterations, "
                "each between the lighter bars of its 95 % confidence interval (none for a p95 "
                "of fewer than about 72 iterations). Two series whose p50 intervals overlap are "
                "within noise of each other. One group per series: mode · client version · "
                "parameters. gnmi/stream times no request (its figure is an update's delay: "
                "the gNMI dashboard).",
                (*with_interval(P50, "p50"), *with_interval(P95, "p95")),
                REQUESTS,
                "ms",
            )
        )
        .with_panel(
            series_bars(
                "How many times faster than the run's baseline?",
                "Baseline p50 / series p50 (results.json `baseline`: the plan's baseline mode, "
                "ssh/pty-fresh by default, the way Netmiko and Ansible work): 3 means three "
                "times faster, between the lighter bars of its 95 % interval (each median's "
                "interval at 97.5 %, so that both hold together). Empty when the run did not "
                "measure the baseline.",
                with_interval(SPEEDUP, "speedup"),
                REQUESTS,
                RATIO_UNIT,
            )
        )
        .with_panel(
            mark_noise(
                series_table(
                    "Faster than the baseline, or within noise?",
                    "The speedup and its 95 % interval; `vs baseline` says faster or slower "
                    "only where the whole interval lies above or below 1, and within noise "
                    "where it holds 1 (the two p50 intervals overlap): such a series is not "
                    "ranked against the baseline. No interval (too few iterations): not "
                    "ranked either.",
                    ratio_columns(SPEEDUP, "speedup", VS_BASELINE),
                    REQUESTS,
                    units({"speedup": RATIO_UNIT}) | {VS_BASELINE: "none"},
                    width=HALF,
                ),
                VS_BASELINE,
                "faster",
                "slower",
            )
        )
        .with_panel(precision_table(SCOPE, width=HALF))
        .with_panel(
            series_table(
                "Every figure of the run",
                "Statistics over the measured iterations (warm-up discarded), the RTT the "
                "profile sets and the RTT the runner verified on the mode's port just before "
                "measuring (TCP connects; HTTP/3: QUIC version negotiation on its UDP port). "
                "n counts successful iterations, errors the failed ones. gnmi/stream's "
                "figures are update delays (the gNMI dashboard). CI low and CI high: the ends "
                "of a figure's 95 % confidence interval (empty with too few iterations).",
                (
                    *with_interval(P50, "p50"),
                    *with_interval(P95, "p95"),
                    last(SummaryField.P99_MS, "p99"),
                    last(SummaryField.MEAN_MS, "mean"),
                    last(SummaryField.STDDEV_MS, "stddev"),
                    last(SummaryField.MIN_MS, "min"),
                    last(SummaryField.MAX_MS, "max"),
                    last(SummaryField.N, "n"),
                    last(SummaryField.ERRORS, "errors"),
                    last(SummaryField.CONFIGURED_RTT_MS, "configured RTT"),
                    last(SummaryField.VERIFIED_RTT_MS, "verified RTT"),
                ),
                SCOPE,
                units({"p50": "ms", "p95": "ms"})
                | {
                    name: "ms"
                    for name in (
                        "p99",
                        "mean",
                        "stddev",
                        "min",
                        "max",
                        "configured RTT",
                        "verified RTT",
                    )
                }
                | {"n": "none", "errors": "none"},
            )
        )
        .with_row(Row("Why: round trips, phases, the wire"))
        .with_panel(
            series_bars(
                "How many round trips does each series pay?",
                "Per iteration: round trips counted on the wire (p50; a connect, or a change "
                "from client-to-device data to device-to-client data), the round trips the "
                "client is expected to pay, and the protocol minimum any client must pay.",
                (
                    last(wire_p50_field("round_trips"), "counted on the wire"),
                    last(SummaryField.EXPECTED_ROUND_TRIPS, "expected"),
                    last(SummaryField.MIN_ROUND_TRIPS, "protocol minimum"),
                ),
                SCOPE,
                "none",
            )
        )
        .with_panel(
            prometheus_table(
                "How many round trips of the verified RTT is each p50?",
                "p50 / verified RTT from the Pushgateway series (as the recording rule "
                "transport_bench:mode_p50_round_trips:ratio makes it) between the ends of its "
                "95 % interval over the same RTT: close to the counted round trips where the "
                "latency is all the cost. Only under added delay: empty at local. gnmi/stream: "
                "its update delay in RTTs, about 0.5 (one way).",
                {
                    _round_trips("transport_bench_mode_p50_ci_low_seconds"): "CI low",
                    _round_trips("transport_bench_mode_p50_seconds"): "round trips",
                    _round_trips("transport_bench_mode_p50_ci_high_seconds"): "CI high",
                },
                SERIES_LABELS,
                "none",
            )
        )
        .with_panel(
            time_split_bars(
                "Where does an iteration's time go? "
                "(network, device, client, TCP stalls, recovery; p50, ms)",
                SCOPE,
            )
        )
        .with_panel(
            series_bars(
                "Which protocol steps take the time? (p50 per phase, ms)",
                "Median of each phase the client lets the runner see (SCHEMA.md lists them and "
                "which clients record which). The rest of the wall time is the client's own "
                "work between phases. OpenSSH, requests and the tunnel modes record none.",
                tuple(last(phase_p50_field(name), name) for name in PHASES),
                SCOPE,
                "ms",
                stacked=True,
                width=FULL,
                height=12,
            )
        )
        .with_panel(
            series_table(
                "What does each series put on the wire per iteration? (p50)",
                "Counted by the runner's packet capture on the mode's ports, for every client. "
                "Packets as the socket sees them (a bulk aggregate is one), segments as on the "
                "wire, TCP payload bytes; then TCP's loss recovery: segments carrying sequence "
                "space (data, SYN, FIN), those sent again either way, retransmission timeouts, "
                "SYNs sent again, D-SACKs (spurious) and device segments out of order (empty "
                "for QUIC, whose packets the capture cannot follow). The Bad links dashboard "
                "shows them under loss.",
                tuple(last(wire_p50_field(field), field) for field in WIRE_FIELDS),
                SCOPE,
                {field: "decbytes" for field in WIRE_FIELDS if "bytes" in field},
            )
        )
        .with_panel(
            xy_points(
                "Is any iteration an outlier? (wall time of every iteration, ms)",
                "Each measured iteration in run order; a line per series. Failed iterations "
                "are points too (their wall time until the failure).",
                Select(
                    (
                        raw(IterationField.ITERATION, "iteration"),
                        raw(IterationField.WALL_MS, "wall time"),
                    ),
                    Measurement.ITERATION,
                    SCOPE,
                    (Tag.SERIES,),
                ),
                x_unit="none",
                y_unit="ms",
                partition_by=(Tag.SERIES,),
                width=FULL,
                height=12,
            )
        )
        .with_row(Row("What each series negotiated"))
    )
    for panel in handshake_tables(SCOPE):
        board.with_panel(panel)
    return render(board)
