"""The catalog as a Markdown page (docs/modes.md): what each mode does and costs at least,
which clients drive it and what each is expected to pay, with the arguments and evidence.
Pure: ``bench-runner modes --markdown`` prints it, and a test compares it with the committed
page, as the dashboards are compared with their generator."""

from collections.abc import Iterable

from bench_runner.modes.base import PerIteration, Transport
from bench_runner.modes.catalog import CLIENT_SCOPE, DEFINITIONS, ROWS
from bench_runner.modes.row import ModeDefinition, Parameters, Row

_SWEPT_OVER = {
    Parameters.NETCONF: "framing x reply size",
    Parameters.NETCONF_FRAMING: "framing",
    Parameters.BULK: "download size",
    Parameters.FLEET: "devices x runs",
    Parameters.RESTCONF_ENCODING: "encoding (JSON, XML)",
}
_TITLES = {
    Transport.SSH: "SSH CLI",
    Transport.HTTPS: "HTTPS API and RESTCONF",
    Transport.NETCONF: "NETCONF",
    Transport.TUNNEL: "SSH tunnels",
    Transport.H3: "HTTP/3 (QUIC)",
    Transport.GNMI: "gNMI (gRPC)",
    Transport.RESTCONF: "RESTCONF",
    Transport.JUMP: "Through the jump host (docs/relays.md)",
    Transport.PROXY: "Through the head-end (docs/relays.md)",
    Transport.PROXY_H3: "Through the head-end over HTTP/3 (docs/relays.md)",
}


def _count(count: PerIteration | None) -> str:
    return "-" if count is None else f"`{count}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _modes_table(definitions: Iterable[ModeDefinition]) -> list[str]:
    lines = [
        "| mode | lower bound (round trips) | connections per iteration | commands per request "
        "| swept over |",
        "|---|---|---|---|---|",
    ]
    for definition in definitions:
        swept = _SWEPT_OVER[definition.parameters] if definition.parameters else "-"
        lines.append(
            f"| `{definition.name}` | {_count(definition.lower_bound)} "
            f"| {_count(definition.connections)} | {_count(definition.commands_per_request)} "
            f"| {swept} |"
        )
    return lines


def _clients_table(rows: Iterable[Row]) -> list[str]:
    lines = ["| client | expected round trips | what it does |", "|---|---|---|"]
    for row in rows:
        client = f"{row.client} (floor)" if row.floor else row.client
        lines.append(f"| {client} | {_count(row.expected)} | {_cell(row.description)} |")
    return lines


def markdown() -> str:
    """The whole page."""
    lines = [
        "# Modes and clients",
        "",
        "<!-- Generated from bench-runner/src/bench_runner/modes/catalog/ by "
        "`make docs-modes`; do not edit. -->",
        "",
        "A mode is what one iteration does; a client is the library that does it. Counts are "
        "per iteration of n commands (`2n + 17`: 2 per command and 17 once). The lower bound "
        "is what any correct client must pay (`p50 >= lower bound x RTT`); the expected count "
        "is what the client is measured or argued to pay. Connections are new connections "
        "across the network (channels on a kept connection are not); commands per request "
        "say how many commands one exec, GET or RPC carries. Compare two modes like for like "
        "only where both match, or say how they differ.",
        "",
        *_modes_table(DEFINITIONS),
    ]
    for transport in Transport:
        definitions = [d for d in DEFINITIONS if d.transport is transport]
        if not definitions:
            continue
        lines += ["", f"## {_TITLES[transport]}"]
        for definition in definitions:
            rows = [row for row in ROWS if row.mode is definition]
            lines += [
                "",
                f"### `{definition.name}`",
                "",
                f"{definition.summary[0].upper()}{definition.summary[1:]}.",
                "",
                definition.argument,
                "",
                *_clients_table(rows),
                "",
                *(f"- {row.client}: {row.evidence}" for row in rows),
            ]
    lines += [
        "",
        "## Not applicable",
        "",
        "A client asked for a mode it has no row for is reported as not applicable, never as "
        "a zero, with its reason:",
        "",
        *(f"- {client}: {reason}" for client, reason in CLIENT_SCOPE.items()),
        "",
    ]
    return "\n".join(lines)
