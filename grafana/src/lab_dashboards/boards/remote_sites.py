"""Remote sites: the same commands straight to the device, through a jump host and through
a head-end, at each WAN profile of a sweep (docs/relays.md), and where each hop's time goes."""

from typing import Any

from bench_runner.influx_schema import (
    SummaryField,
    Tag,
    hop_p50_field,
    phase_p50_field,
    wire_p50_field,
)
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import last, matches, one_of, present
from lab_dashboards.intervals import P50, P95, units, with_interval
from lab_dashboards.panels import FULL, p50_against_rtt, series_bars, series_table

UID = "remote-sites"
RELAYED_TRANSPORTS = ("jump", "proxy", "proxy-h3")
HOP_PHASES = (
    "jump_login",
    "device_login",
    "lan_connect",
    "lan_commands",
    "headend",
    "wan_and_client",
)
"""The phases of a relayed iteration (bench_runner.phases): each hop's share."""
HOP_SPLIT_COLUMNS = (
    ("wan_network", "WAN network"),
    ("lan_network", "LAN network"),
    ("relay", "relay"),
    ("device", "device"),
    ("relay_and_device", "relay + device"),
    ("client", "client"),
    ("stall", "TCP stalls"),
    ("recovery", "recovery"),
)
"""The parts of a relayed iteration's time by hop (bench_runner.hop_split), as columns."""
SWEEP = (matches(Tag.SWEEP, "sweep"),)
SELECTED = (*SWEEP, matches(Tag.TRANSPORT, "transport"), matches(Tag.CLIENT, "client"))
SCOPE = (*SELECTED, matches(Tag.PROFILE, "profile"))
RELAYED = (*SCOPE, one_of(Tag.TRANSPORT, RELAYED_TRANSPORTS))


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "Remote sites",
            "The devices behind a remote site (`make bench-relays`): the same commands "
            "straight to the device, through an OpenSSH jump host and through a head-end "
            "(HTTPS or HTTP/3 across the WAN, SSH across the LAN), each WAN profile of a "
            "sweep, with each hop's round trips and time.",
            time_from="now-30d",
        )
        .with_variable(
            variables.sweep(
                (present(Tag.LAN_PROFILE),),
                description="a `bench-runner run` that measured relayed modes: its direct "
                "modes are runs <sweep>[-<profile>], its relayed ones <sweep>[-<profile>]"
                "-relayed",
            )
        )
        .with_variable(
            variables.narrowing(
                "profile",
                "WAN profile",
                Tag.PROFILE,
                SWEEP,
                description="the profile of the WAN hop (the direct modes' only hop): one "
                "chart each",
                custom_all=False,
            )
        )
        .with_variable(
            variables.narrowing(
                "transport",
                "Transport",
                Tag.TRANSPORT,
                SWEEP,
                description="jump (through the jump host), proxy and proxy-h3 (through the "
                "head-end over HTTPS, HTTP/3), and the direct ones: ssh, https, ...",
            )
        )
        .with_variable(
            variables.client(
                (*SWEEP, matches(Tag.TRANSPORT, "transport")),
            )
        )
        .with_row(Row("Direct, through a jump host, through a head-end"))
        .with_panel(
            series_bars(
                "At $profile: how long do the commands take on each path? (p50 and p95, ms)",
                "Wall time of one iteration, the same commands on the same device: straight "
                "from the runner (ssh/*, https/*), through the jump host (jump/*: the device's "
                "SSH inside the jump host's) and through the head-end (proxy/* over HTTPS, "
                "proxy-h3/* over HTTP/3: one POST carrying the commands, SSH on the LAN). The "
                "relayed modes' LAN hop has its own profile (the table says which). Each "
                "figure between the lighter bars of its 95 % interval: two series whose "
                "intervals overlap are within noise.",
                (*with_interval(P50, "p50"), *with_interval(P95, "p95")),
                SCOPE,
                "ms",
                width=FULL,
                height=12,
            )
            .repeat("profile")
            .repeat_direction("v")
        )
        .with_panel(
            series_bars(
                "At $profile: where does a relayed iteration's time go? (p50 per hop, ms)",
                "Medians of each hop's phases. Jump host: the login to the jump host, then "
                "the device's login through its direct-tcpip channel (both across the WAN; "
                "the commands are the rest). Head-end: its SSH connect to the device (0 when "
                "pooled) and the commands across the LAN, as the head-end timed them, its own "
                "time besides, and the rest of the request (the WAN, TLS or QUIC, the client). "
                "Medians of each part: their sum is close to, not exactly, the p50.",
                tuple(last(phase_p50_field(name), name) for name in HOP_PHASES),
                RELAYED,
                "ms",
                stacked=True,
                width=FULL,
                height=10,
            )
            .repeat("profile")
            .repeat_direction("v")
        )
        .with_row(Row("Each hop"))
        .with_panel(
            series_table(
                "What does each hop carry? (per WAN profile)",
                "Both hops' RTTs as the runner verified them before measuring (the WAN on "
                "the relay's port, the LAN on the device's), the round trips of one iteration "
                "on the WAN (the runner's packet capture) and on the LAN (counted by the "
                "head-end on its SSH connections, and through the jump host on the device's "
                "session inside its channel; not for the OpenSSH client), connections and "
                "commands per iteration, commands per request. The p50 between the ends of its "
                "95 % interval.",
                (
                    *with_interval(P50, "p50"),
                    last(SummaryField.VERIFIED_RTT_MS, "WAN RTT"),
                    last(SummaryField.LAN_VERIFIED_RTT_MS, "LAN RTT"),
                    last(wire_p50_field("round_trips"), "WAN round trips"),
                    last(SummaryField.LAN_ROUND_TRIPS_P50, "LAN round trips"),
                    last(SummaryField.CONNECTIONS_PER_ITERATION, "connections"),
                    last(SummaryField.COMMANDS_PER_ITERATION, "commands"),
                    last(SummaryField.COMMANDS_PER_REQUEST, "per request"),
                    last(SummaryField.N, "n"),
                ),
                SCOPE,
                units({"p50": "ms"}) | {"WAN RTT": "ms", "LAN RTT": "ms"},
                group_by=(Tag.SERIES, Tag.PROFILE, Tag.LAN_PROFILE),
                height=14,
            )
        )
        .with_panel(
            series_table(
                "Where does a relayed iteration's time go, hop by hop? (p50 ms, from the packets)",
                "The runner's capture splits each iteration on the WAN (network, client, TCP "
                "stalls, recovery); what it sees behind the relay is cut into the LAN network "
                "(the LAN round trips times the verified LAN RTT), the relay and the device. "
                "The head-end times its LAN work: the device is that less the LAN network, "
                "the relay the rest (its own time, TLS). The jump host reports nothing, and a "
                "capture on the WAN cannot tell its forwarding from the device's time: one "
                "part, relay + device, relay and device empty. Empty LAN network: not counted "
                "(the OpenSSH client's jump modes). Medians of each part: their sum is close "
                "to, not exactly, the p50.",
                (
                    *with_interval(P50, "p50"),
                    *(last(hop_p50_field(part), name) for part, name in HOP_SPLIT_COLUMNS),
                    last(SummaryField.LAN_ROUND_TRIPS_P50, "LAN round trips"),
                    last(SummaryField.LAN_VERIFIED_RTT_MS, "LAN RTT"),
                ),
                RELAYED,
                units({"p50": "ms"})
                | {name: "ms" for _, name in HOP_SPLIT_COLUMNS}
                | {"LAN RTT": "ms"},
                group_by=(Tag.SERIES, Tag.PROFILE),
                height=12,
            )
        )
        .with_row(Row("Across the WAN profiles"))
        .with_panel(
            p50_against_rtt(
                "How does each path's p50 grow with the WAN's RTT?",
                "p50 against the WAN RTT the runner verified, one line per series across the "
                "profiles of the sweep, the ends of each p50's 95 % interval as small points "
                "above and below it. A relayed path's slope is its WAN round trips: the jump "
                "host's carries the device's login too, the head-end's only the HTTP exchange.",
                SCOPE,
                rtt_name="WAN RTT",
            )
        )
    )
    return render(board, profile_variable="profile")
