"""Tunnels: SSH local forwarding against a direct transfer of the same payload."""

from typing import Any

from bench_runner.influx_schema import SummaryField, Tag, wire_p50_field
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import Column, equals, last, matches, one_of, quoted
from lab_dashboards.intervals import P50, P95, high_name, low_name, units, with_interval
from lab_dashboards.panels import series_bars, series_table

UID = "tunnels"
BULK_MODES = ("tunnel/bulk", "https/bulk")
"""The same payload through an SSH tunnel and directly over HTTPS."""
BULK = (*variables.RUN_SCOPE, one_of(Tag.MODE, BULK_MODES))
SCOPE = (*BULK, matches(Tag.CLIENT, "client"), matches(Tag.BULK_SIZE, "bulk_size"))
REQUEST = (*variables.RUN_SCOPE, equals(Tag.MODE, "tunnel/request"), matches(Tag.CLIENT, "client"))
THROUGHPUT = "throughput"


def _throughput(p50_field: str) -> str:
    """Payload over a p50 in 10^6 bytes per second, as the runner computes throughput_mb_s."""
    return f"last({quoted(SummaryField.TRANSFER_BYTES)}) / last({quoted(p50_field)}) / 1000"


THROUGHPUT_INTERVAL = (
    Column(_throughput(P50.high), low_name(THROUGHPUT)),
    last(SummaryField.THROUGHPUT_MB_S, THROUGHPUT),
    Column(_throughput(P50.low), high_name(THROUGHPUT)),
)
"""Throughput between the payload over the ends of the p50's 95 % interval (the slow end
gives the low throughput)."""


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "Tunnels",
            "Downloads through an SSH local forward (`ssh -L`: asyncssh, OpenSSH, "
            "paramiko) against the same payload straight over HTTPS, and the latency "
            "of a small request through a kept forward.",
        )
        .with_variable(variables.profile())
        .with_variable(variables.run())
        .with_variable(variables.client(BULK))
        .with_variable(
            variables.narrowing(
                "bulk_size",
                "Payload",
                Tag.BULK_SIZE,
                BULK,
                description="download size: 10M, 100M or 1G (MiB, GiB)",
            )
        )
        .with_row(Row("Bulk transfer"))
        .with_panel(
            series_bars(
                "How fast does a download go through the tunnel, against direct HTTPS? (MB/s)",
                "Payload size over the p50 wall time of one download (10^6 bytes per second). "
                "tunnel/bulk: a new connection through the kept forward per download; "
                "https/bulk: the same bytes on a kept HTTPS connection, no tunnel. Between the "
                "lighter bars of its 95 % interval (the payload over the ends of the p50's).",
                THROUGHPUT_INTERVAL,
                SCOPE,
                "MBs",
                height=12,
            )
        )
        .with_panel(
            series_bars(
                "How long does one download take? (p50 and p95)",
                "Wall time of one download, from the request (and the channel open, through a "
                "tunnel) to the last byte. Each figure between the lighter bars of its 95 % "
                "interval.",
                (*with_interval(P50, "p50"), *with_interval(P95, "p95")),
                SCOPE,
                "ms",
                height=12,
            )
        )
        .with_row(Row("Small requests"))
        .with_panel(
            series_bars(
                "How long does a request through a kept forward take? (p50 and p95, ms)",
                "tunnel/request: one small GET per command through the forward kept across "
                "iterations; compare with https/keep-alive on the Transport comparison "
                "dashboard. Each figure between the lighter bars of its 95 % interval.",
                (*with_interval(P50, "p50"), *with_interval(P95, "p95")),
                REQUEST,
                "ms",
            )
        )
        .with_panel(
            series_table(
                "Bulk series of the run",
                "Per download: its size, p50, throughput, and what crossed the wire; p50 and "
                "throughput between the ends of their 95 % interval (CI low, CI high).",
                (
                    last(SummaryField.TRANSFER_BYTES, "payload"),
                    *with_interval(P50, "p50"),
                    *THROUGHPUT_INTERVAL,
                    last(wire_p50_field("segments_in"), "segments in"),
                    last(wire_p50_field("round_trips"), "round trips"),
                    last(SummaryField.N, "n"),
                ),
                SCOPE,
                units({"p50": "ms", THROUGHPUT: "MBs"}) | {"payload": "bytes"},
                width=12,
            )
        )
    )
    return render(board)
