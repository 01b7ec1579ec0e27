"""Tunnels: SSH local forwarding against a direct transfer of the same payload."""

from typing import Any

from bench_runner.influx_schema import SummaryField, Tag, wire_p50_field
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import equals, last, matches, one_of
from lab_dashboards.panels import series_bars, series_table

UID = "tunnels"
BULK_MODES = ("tunnel/bulk", "https/bulk")
"""The same payload through an SSH tunnel and directly over HTTPS."""
BULK = (*variables.RUN_SCOPE, one_of(Tag.MODE, BULK_MODES))
SCOPE = (*BULK, matches(Tag.CLIENT, "client"), matches(Tag.BULK_SIZE, "bulk_size"))
REQUEST = (*variables.RUN_SCOPE, equals(Tag.MODE, "tunnel/request"), matches(Tag.CLIENT, "client"))


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
                "https/bulk: the same bytes on a kept HTTPS connection, no tunnel.",
                (last(SummaryField.THROUGHPUT_MB_S, "throughput"),),
                SCOPE,
                "MBs",
                height=12,
            )
        )
        .with_panel(
            series_bars(
                "How long does one download take? (p50 and p95)",
                "Wall time of one download, from the request (and the channel open, through a "
                "tunnel) to the last byte.",
                (last(SummaryField.P50_MS, "p50"), last(SummaryField.P95_MS, "p95")),
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
                "dashboard.",
                (last(SummaryField.P50_MS, "p50"), last(SummaryField.P95_MS, "p95")),
                REQUEST,
                "ms",
            )
        )
        .with_panel(
            series_table(
                "Bulk series of the run",
                "Per download: its size, p50, throughput, and what crossed the wire.",
                (
                    last(SummaryField.TRANSFER_BYTES, "payload"),
                    last(SummaryField.P50_MS, "p50"),
                    last(SummaryField.THROUGHPUT_MB_S, "throughput"),
                    last(wire_p50_field("segments_in"), "segments in"),
                    last(wire_p50_field("round_trips"), "round trips"),
                    last(SummaryField.N, "n"),
                ),
                SCOPE,
                {"payload": "bytes", "p50": "ms", "throughput": "MBs"},
                width=12,
            )
        )
    )
    return render(board)
