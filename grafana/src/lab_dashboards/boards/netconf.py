"""NETCONF: time per RPC by reply size, framing and client; pipelined against sequential."""

from typing import Any

from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import Column, Select, last, matches, one_of, raw
from lab_dashboards.panels import FULL, series_bars, series_table, xy_points
from lab_dashboards.schema import MODE_SUMMARY, NETCONF_MODES, PIPELINED_AND_SEQUENTIAL

UID = "netconf"
NETCONF = (*variables.RUN_SCOPE, "\"transport\" = 'netconf'")
SCOPE = (
    *NETCONF,
    matches("client", "client"),
    matches("framing", "framing"),
    matches("reply_bytes", "reply_bytes"),
)
PER_RPC = Column('last("p50_ms") / last("commands_per_iteration")', "ms per RPC")


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "NETCONF",
            "NETCONF over SSH: what one RPC costs as replies grow, in base:1.0 "
            "(end-of-message) and base:1.1 (chunked) framing, with each client; and "
            "what pipelining saves. Runs with framing and reply-size sweeps (the "
            "netconf-sweep and nightly plans).",
        )
        .with_variable(variables.profile())
        .with_variable(variables.run())
        .with_variable(variables.client(NETCONF))
        .with_variable(
            variables.narrowing(
                "framing",
                "Framing",
                "framing",
                NETCONF,
                description="1.0: end-of-message ]]>]]>; 1.1: chunked (RFC 6242)",
            )
        )
        .with_variable(
            variables.narrowing(
                "reply_bytes",
                "Reply size",
                "reply_bytes",
                NETCONF,
                description="bytes of each <get> reply the runner asked the device for",
            )
        )
        .with_row(Row("Reply size and framing"))
        .with_panel(
            xy_points(
                "How long does one RPC take as replies grow? (ms per RPC)",
                "p50 of an iteration divided by its RPCs, against the requested reply size "
                "(log scale), one line per mode, client and framing. fresh-session includes "
                "the session's setup in every RPC's share.",
                Select(
                    (
                        raw("parameter_reply_bytes", "reply size"),
                        Column('"p50_ms" / "commands_per_iteration"', "ms per RPC"),
                    ),
                    MODE_SUMMARY,
                    (*SCOPE, one_of("mode", NETCONF_MODES)),
                    ("mode", "client", "client_version", "framing"),
                ),
                x_unit="decbytes",
                y_unit="ms",
                partition_by=("mode", "client", "client_version", "framing"),
                log_x=True,
                width=FULL,
                height=12,
            )
        )
        .with_panel(
            series_bars(
                "Pipelined or sequential: what does batch-rpc save? (ms per RPC)",
                "batch-rpc sends every RPC before reading the replies (RFC 6241 allows it), "
                "reuse-session waits for each reply: the difference is round trips.",
                (PER_RPC,),
                (*SCOPE, one_of("mode", PIPELINED_AND_SEQUENTIAL)),
                "ms",
                height=12,
            )
        )
        .with_panel(
            series_bars(
                "How long do an edit and a commit take? (p50 and p95, ms)",
                "netconf/edit-commit: <edit-config> to the candidate, <commit>, and the edit "
                "undone in the same way; its replies are <ok/> whatever the reply size.",
                (last("p50_ms", "p50"), last("p95_ms", "p95")),
                (
                    *NETCONF,
                    matches("client", "client"),
                    matches("framing", "framing"),
                    "\"mode\" = 'netconf/edit-commit'",
                ),
                "ms",
                height=12,
            )
        )
        .with_row(Row("Every NETCONF series"))
        .with_panel(
            series_table(
                "NETCONF series of the run",
                "Per iteration: p50 and p95, the share of one RPC, and what crossed the wire.",
                (
                    last("p50_ms", "p50"),
                    last("p95_ms", "p95"),
                    PER_RPC,
                    last("wire_bytes_in_p50", "bytes in"),
                    last("wire_round_trips_p50", "round trips"),
                    last("n", "n"),
                    last("errors", "errors"),
                ),
                SCOPE,
                {"p50": "ms", "p95": "ms", "ms per RPC": "ms", "bytes in": "decbytes"},
                height=12,
            )
        )
    )
    return render(board)
