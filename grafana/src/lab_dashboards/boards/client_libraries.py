"""Client libraries: the same mode with every library, versions in the legend."""

from typing import Any

from bench_runner.influx_schema import SummaryField, Tag, phase_p50_field, wire_p50_field
from bench_runner.phases import PHASES
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import last, matches
from lab_dashboards.intervals import P50, P95, VS_FLOOR, units, with_interval
from lab_dashboards.panels import (
    FULL,
    RATIO_UNIT,
    TIMES,
    handshake_tables,
    series_bars,
    series_table,
    time_split_bars,
)
from lab_dashboards.precision import mark_noise, ratio_columns

UID = "client-libraries"
FLOOR = f"{TIMES} floor"
VS_FLOOR_CLIENT = "vs floor client"
SCOPE = (
    *variables.RUN_SCOPE,
    matches(Tag.TRANSPORT, "transport"),
    matches(Tag.MODE, "mode"),
    matches(Tag.CLIENT, "client"),
)


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "Client libraries",
            "The same mode with asyncssh, paramiko, OpenSSH, netmiko, scrapli, httpx, "
            "requests, ncclient, scrapli-netconf, for HTTP/3 quic-go, aioquic and curl, for "
            "gNMI grpc-go, pygnmi and gnmi_cli, for RESTCONF httpx and requests: what the "
            "library costs on top of the transport. Runs with `--clients all` (the smoke and "
            "nightly plans).",
        )
        .with_variable(variables.profile())
        .with_variable(variables.run())
        .with_variable(variables.transport())
        .with_variable(variables.mode())
        .with_variable(
            variables.client(
                (
                    *variables.RUN_SCOPE,
                    matches(Tag.TRANSPORT, "transport"),
                    matches(Tag.MODE, "mode"),
                )
            )
        )
        .with_row(Row("What the library costs"))
        .with_panel(
            series_bars(
                "How long does the same mode take with each library? (p50 and p95, ms)",
                "Every series of the run: mode · client version · parameters, sorted so that "
                "the libraries of one mode stand together (gnmi/stream's figures are update "
                "delays: a change on the device to its update at the client). Each figure "
                "between the lighter bars of its 95 % interval: two libraries whose p50 "
                "intervals overlap are within noise of each other.",
                (*with_interval(P50, "p50"), *with_interval(P95, "p95")),
                SCOPE,
                "ms",
                height=14,
            )
        )
        .with_panel(
            series_bars(
                "How many times the floor client's p50? (same mode and parameters)",
                "p50 of the series over the p50 of the same mode and parameters with its floor "
                "client (asyncssh, httpx, python-ssl, quic-go or grpc-go) in the same run: 1 is "
                "the floor, 3 means the library takes three times as long, between the lighter "
                "bars of its 95 % interval (each median's at 97.5 %). Empty when the run did "
                "not measure the floor client.",
                with_interval(VS_FLOOR, FLOOR),
                SCOPE,
                RATIO_UNIT,
                height=14,
            )
        )
        .with_row(Row("Why"))
        .with_panel(
            series_bars(
                "How many round trips does each library pay?",
                "Counted on the wire (p50) against what the client is expected to pay and the "
                "protocol minimum: a library above the minimum waits for the device more often "
                "than it must.",
                (
                    last(wire_p50_field("round_trips"), "counted on the wire"),
                    last(SummaryField.EXPECTED_ROUND_TRIPS, "expected"),
                    last(SummaryField.MIN_ROUND_TRIPS, "protocol minimum"),
                ),
                SCOPE,
                "none",
                height=14,
            )
        )
        .with_panel(
            time_split_bars(
                "Is it the network, the device, the library, TCP or a loss? (p50 per part, ms)",
                SCOPE,
                height=14,
                width=12,
            )
        )
        .with_panel(
            series_bars(
                "Which protocol steps does each library spend on? (p50 per phase, ms)",
                "The phases each library exposes (`connect` is a library's whole connection "
                "setup where it cannot be split).",
                tuple(last(phase_p50_field(name), name) for name in PHASES),
                SCOPE,
                "ms",
                stacked=True,
                height=14,
            )
        )
        .with_panel(
            mark_noise(
                series_table(
                    "Libraries, versions and figures",
                    "One row per series; the version is the installed distribution's (OpenSSH: "
                    "`ssh -V`). Each figure between the ends of its 95 % interval (CI low, CI "
                    "high); `vs floor client` says slower or faster only where the whole interval "
                    "of the times-the-floor ratio lies above or below 1, within noise where it "
                    "holds 1 (the two p50 intervals overlap; also the floor client against "
                    "itself), not ranked without an interval.",
                    (
                        *with_interval(P50, "p50"),
                        *with_interval(P95, "p95"),
                        *ratio_columns(VS_FLOOR, FLOOR, VS_FLOOR_CLIENT),
                        last(SummaryField.N, "n"),
                        last(SummaryField.ERRORS, "errors"),
                        last(wire_p50_field("round_trips"), "round trips"),
                        last(wire_p50_field("packets_out"), "packets out"),
                        last(wire_p50_field("packets_in"), "packets in"),
                    ),
                    SCOPE,
                    units({"p50": "ms", "p95": "ms", FLOOR: RATIO_UNIT})
                    | {VS_FLOOR_CLIENT: "none"},
                    group_by=(Tag.SERIES, Tag.CLIENT, Tag.CLIENT_VERSION),
                    width=FULL,
                ),
                VS_FLOOR_CLIENT,
                "slower",
                "faster",
            )
        )
        .with_row(Row("What each library negotiated"))
    )
    for panel in handshake_tables(SCOPE):
        board.with_panel(panel)
    return render(board)
