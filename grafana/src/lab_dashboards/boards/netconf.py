"""NETCONF: time per RPC by reply size, framing and client; pipelined against sequential."""

from typing import Any

from bench_runner.influx_schema import (
    Measurement,
    SummaryField,
    Tag,
    parameter_field,
    wire_p50_field,
)
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import Select, equals, last, matches, one_of, quoted, raw
from lab_dashboards.intervals import P50, P95, units, with_interval
from lab_dashboards.panels import FULL, series_bars, series_table, xy_points

UID = "netconf"
NETCONF_MODES = ("netconf/fresh-session", "netconf/reuse-session", "netconf/batch-rpc")
"""NETCONF modes whose RPCs are ``<get>`` of a requested reply size."""
PIPELINED_AND_SEQUENTIAL = ("netconf/batch-rpc", "netconf/reuse-session")
NETCONF = (*variables.RUN_SCOPE, equals(Tag.TRANSPORT, "netconf"))
SCOPE = (
    *NETCONF,
    matches(Tag.CLIENT, "client"),
    matches(Tag.FRAMING, "framing"),
    matches(Tag.REPLY_BYTES, "reply_bytes"),
)
BY_MODE_CLIENT_FRAMING = (Tag.MODE, Tag.CLIENT, Tag.CLIENT_VERSION, Tag.FRAMING)


def _per_rpc(field: str) -> str:
    return f"last({quoted(field)}) / last({quoted(SummaryField.COMMANDS_PER_ITERATION)})"


def _per_rpc_point(field: str) -> str:
    return f"{quoted(field)} / {quoted(SummaryField.COMMANDS_PER_ITERATION)}"


PER_RPC = with_interval(P50, "ms per RPC", _per_rpc)
"""An RPC's share of the p50, between the same shares of its interval's ends."""


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
                Tag.FRAMING,
                NETCONF,
                description="1.0: end-of-message ]]>]]>; 1.1: chunked (RFC 6242)",
            )
        )
        .with_variable(
            variables.narrowing(
                "reply_bytes",
                "Reply size",
                Tag.REPLY_BYTES,
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
                "the session's setup in every RPC's share. The small points above and below "
                "each are the same share of its p50's 95 % interval's ends.",
                Select(
                    (
                        raw(parameter_field(Tag.REPLY_BYTES), "reply size"),
                        *with_interval(P50, "ms per RPC", _per_rpc_point),
                    ),
                    Measurement.MODE_SUMMARY,
                    (*SCOPE, one_of(Tag.MODE, NETCONF_MODES)),
                    BY_MODE_CLIENT_FRAMING,
                ),
                x_unit="decbytes",
                y_unit="ms",
                partition_by=BY_MODE_CLIENT_FRAMING,
                log_x=True,
                width=FULL,
                height=12,
            )
        )
        .with_panel(
            series_bars(
                "Pipelined or sequential: what does batch-rpc save? (ms per RPC)",
                "batch-rpc sends every RPC before reading the replies (RFC 6241 allows it), "
                "reuse-session waits for each reply: the difference is round trips. Each "
                "between the lighter bars of its 95 % interval: overlapping ones are within "
                "noise.",
                PER_RPC,
                (*SCOPE, one_of(Tag.MODE, PIPELINED_AND_SEQUENTIAL)),
                "ms",
                height=12,
            )
        )
        .with_panel(
            series_bars(
                "How long do an edit and a commit take? (p50 and p95, ms)",
                "netconf/edit-commit: <edit-config> to the candidate, <commit>, and the edit "
                "undone in the same way; its replies are <ok/> whatever the reply size. Each "
                "figure between the lighter bars of its 95 % interval.",
                (*with_interval(P50, "p50"), *with_interval(P95, "p95")),
                (
                    *NETCONF,
                    matches(Tag.CLIENT, "client"),
                    matches(Tag.FRAMING, "framing"),
                    equals(Tag.MODE, "netconf/edit-commit"),
                ),
                "ms",
                height=12,
            )
        )
        .with_row(Row("Every NETCONF series"))
        .with_panel(
            series_table(
                "NETCONF series of the run",
                "Per iteration: p50 and p95, the share of one RPC, and what crossed the wire; "
                "each figure between the ends of its 95 % interval (CI low, CI high).",
                (
                    *with_interval(P50, "p50"),
                    *with_interval(P95, "p95"),
                    *PER_RPC,
                    last(wire_p50_field("bytes_in"), "bytes in"),
                    last(wire_p50_field("round_trips"), "round trips"),
                    last(SummaryField.N, "n"),
                    last(SummaryField.ERRORS, "errors"),
                ),
                SCOPE,
                units({"p50": "ms", "p95": "ms", "ms per RPC": "ms"}) | {"bytes in": "decbytes"},
                height=12,
            )
        )
    )
    return render(board)
