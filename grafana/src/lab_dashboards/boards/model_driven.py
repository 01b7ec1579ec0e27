"""Model-driven: gNMI, RESTCONF and NETCONF reading and writing the same leaves of the same
store in one run, so the three compare like for like."""

from typing import Any

from bench_runner.influx_schema import SummaryField, Tag, wire_p50_field
from grafana_foundation_sdk.builders import table
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import last, matches, one_of, quoted
from lab_dashboards.intervals import P50, P95, units, with_interval
from lab_dashboards.panels import FULL, series_bars, series_table

UID = "model-driven"
READS = ("gnmi/reuse-conn", "restconf/keep-alive", "netconf/get-config")
"""One interface's configuration per command, on a kept connection: a gNMI Get, a RESTCONF
GET, a NETCONF <get-config> with a subtree filter."""
WRITES = ("gnmi/set-batch", "restconf/patch-batch", "netconf/edit-commit")
"""The iteration's description changes, each transport's way: one gNMI Set and one RESTCONF
PATCH carrying them all, NETCONF's <edit-config> per change to the candidate and one
<commit>."""
TRANSPORTS = ("gnmi", "restconf", "netconf")
MODEL_DRIVEN = (*variables.RUN_SCOPE, one_of(Tag.TRANSPORT, TRANSPORTS))
SCOPE = (*MODEL_DRIVEN, matches(Tag.CLIENT, "client"))


def _per_command(field: str) -> str:
    return f"last({quoted(field)}) / last({quoted(SummaryField.COMMANDS_PER_ITERATION)})"


PER_COMMAND = with_interval(P50, "p50 per command", _per_command)
"""A command's share of the p50, between the same shares of its interval's ends."""
TIMES = (*with_interval(P50, "p50"), *with_interval(P95, "p95"))


def _wire_table(title: str, modes: tuple[str, ...]) -> table.Panel:
    return series_table(
        title,
        "Per iteration (p50): round trips counted on the wire against the protocol "
        "minimum, requests' commands, connections opened, and the bytes each way: the "
        "encodings' sizes (gNMI's JSON_IETF in protobuf, RESTCONF's JSON or XML, NETCONF's "
        "XML in SSH) show here. p50 and its share per command between the ends of their "
        "95 % interval (CI low, CI high).",
        (
            *with_interval(P50, "p50"),
            *PER_COMMAND,
            last(wire_p50_field("round_trips"), "round trips"),
            last(SummaryField.MIN_ROUND_TRIPS, "protocol minimum"),
            last(SummaryField.COMMANDS_PER_REQUEST, "commands per request"),
            last(SummaryField.CONNECTIONS_PER_ITERATION, "connections per iteration"),
            last(wire_p50_field("bytes_out"), "bytes out"),
            last(wire_p50_field("bytes_in"), "bytes in"),
            last(SummaryField.N, "n"),
            last(SummaryField.ERRORS, "errors"),
        ),
        (*SCOPE, one_of(Tag.MODE, modes)),
        units({"p50": "ms", "p50 per command": "ms"})
        | {
            "bytes out": "decbytes",
            "bytes in": "decbytes",
        },
        height=9,
        width=FULL,
    )


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "Model-driven: gNMI, RESTCONF, NETCONF",
            "The three model-driven transports on one store and one set of leaves: the same "
            "interfaces' configuration read one command at a time on a kept connection "
            "(gnmi/reuse-conn, restconf/keep-alive, netconf/get-config), and an "
            "iteration's interface descriptions written each transport's way "
            "(gnmi/set-batch, restconf/patch-batch, netconf/edit-commit). gNMI reads "
            "OpenConfig paths, RESTCONF and NETCONF the native model, as IOS-XE does. Runs "
            "with every mode (the nightly, smoke and every-mode plans).",
        )
        .with_variable(variables.profile())
        .with_variable(variables.run())
        .with_variable(
            variables.narrowing(
                "client",
                "Client library",
                Tag.CLIENT,
                MODEL_DRIVEN,
                description="gNMI: grpc-go, pygnmi, gnmi_cli; RESTCONF: httpx, requests; "
                "NETCONF: asyncssh (hand-framed), ncclient, scrapli-netconf, scrapligo",
            )
        )
        .with_row(Row("Reading the same leaves"))
        .with_panel(
            series_bars(
                "Reading the same interfaces: how long does an iteration take? (p50, p95, ms)",
                "Each command reads one interface's configuration (the device's interfaces in "
                "turn): a gNMI Get of /interfaces/interface[name=X]/config, a RESTCONF GET of "
                "the native interface, a NETCONF <get-config> with its subtree filter; one "
                "kept connection, one request per command. Each figure between the lighter bars "
                "of its 95 % interval: overlapping p50 intervals are within noise.",
                TIMES,
                (*SCOPE, one_of(Tag.MODE, READS)),
                "ms",
            )
        )
        .with_panel(
            series_bars(
                "Reading: what does one command cost? (p50 per command, ms)",
                "The iteration's p50 over its commands: one request and its answer on the "
                "kept connection, so close to one RTT each under added delay; between the same "
                "shares of its 95 % interval's ends.",
                PER_COMMAND,
                (*SCOPE, one_of(Tag.MODE, READS)),
                "ms",
            )
        )
        .with_panel(_wire_table("Reading: round trips and bytes", READS))
        .with_row(Row("Writing the same leaves"))
        .with_panel(
            series_bars(
                "Writing n descriptions: how long does an iteration take? (p50, p95, ms)",
                "One description change per command, each a value unique to the iteration: "
                "gNMI carries them in one Set (applied atomically) and RESTCONF in one PATCH "
                "of the native tree, each command's to its own interface; NETCONF sends an "
                "<edit-config> to the candidate per change (Loopback0's description) and one "
                "<commit>. The original descriptions are restored after the mode, unmeasured. "
                "Each figure between the lighter bars of its 95 % interval.",
                TIMES,
                (*SCOPE, one_of(Tag.MODE, WRITES)),
                "ms",
            )
        )
        .with_panel(
            series_bars(
                "Writing: how many round trips does each pay?",
                "Counted on the wire (p50) against the protocol minimum: a Set or a PATCH is "
                "one request (1), NETCONF's edits and commit n + 1 RPCs, each after the "
                "previous reply.",
                (
                    last(wire_p50_field("round_trips"), "counted on the wire"),
                    last(SummaryField.MIN_ROUND_TRIPS, "protocol minimum"),
                ),
                (*SCOPE, one_of(Tag.MODE, WRITES)),
                "none",
            )
        )
        .with_panel(_wire_table("Writing: round trips and bytes", WRITES))
    )
    return render(board)
