"""Bad links: one sweep over lossy profiles (the impairment plan), each series' tail against
loss, how often its iterations met a loss against the loss model's probability, what TCP's
recovery cost, and whether the measured p95 and p99 follow the model (docs/bad-links.md).

InfluxDB holds no loss rate (neither a tag nor a field): a profile's loss is in its name
(``regional-loss-1``: regional's RTT with 1 % loss each way), and within one latency the names
sort in loss order, so the panels group by the profile tag and their descriptions say so.
"""

from typing import Any

from bench_runner.influx_schema import (
    Measurement,
    SummaryField,
    Tag,
    time_field,
    time_p50_field,
    wire_field,
    wire_p50_field,
)
from grafana_foundation_sdk.builders.dashboard import Row

from lab_dashboards import variables
from lab_dashboards.board import dashboard, render
from lab_dashboards.influxql import Column, last, matches, quoted
from lab_dashboards.intervals import (
    P50,
    P95,
    P99,
    against,
    against_mappings,
    latest,
    units,
    with_interval,
)
from lab_dashboards.panels import FULL, THIRD, config, not_streams, series_bars, series_table

UID = "bad-links"
SWEEP = (matches(Tag.SWEEP, "sweep"),)
PROFILES = (*SWEEP, matches(Tag.PROFILE, "profile"))
SCOPE = (*PROFILES, matches(Tag.TRANSPORT, "transport"), matches(Tag.CLIENT, "client"))
REQUESTS = (*SCOPE, *not_streams())
"""Series whose figure is a request's time."""
RECOVERY = "recovery"
"""The time split's part for TCP repairing a loss (bench_runner.wire.timeline.PARTS)."""
PROFILE_BY_NAME = (
    "InfluxDB holds no loss rate, so the profile stands for it, in name order: loss order "
    "within one latency (regional, regional-loss-0.1, -0.5, -1, -2; the number is the loss "
    "in percent of the packets, each way)."
)
QUIC_UNSEEN = (
    "HTTP/3: QUIC encrypts its packet numbers, so the capture cannot see its retransmissions; "
    "quic-go counts its own (packets declared lost, probe timeouts, the server's packet "
    "numbers missing on arrival: docs/bad-links.md), other HTTP/3 clients none."
)
VERDICT_TEXTS = (
    "follows",
    ("above", "orange"),
    ("below", "blue"),
    "not judged: no interval or model",
)
"""The measured figure's 95 % interval against the model's value: holding it, wholly above
it (a longer tail than the model says), wholly below it; nothing without both."""


def _mean(field: str, name: str) -> Column:
    """The mean of an ``iteration`` field over the series' measured iterations."""
    return Column(f"mean({quoted(field)})", name)


def build() -> dict[str, Any]:
    board = (
        dashboard(
            UID,
            "Bad links",
            "One sweep over lossy profiles (`make bench-impairment`, the impairment plan): how "
            "each series' tail grows with loss, how often its iterations met a loss against "
            "the loss model's probability, what TCP's recovery cost, and whether the measured "
            "p95 and p99 follow the model (docs/bad-links.md).",
            time_from="now-30d",
        )
        .with_variable(
            variables.sweep(
                description="the run id given to `bench-runner run` (impairment-<time> for "
                "`make bench-impairment`; a single run is its own sweep)",
            )
        )
        .with_variable(
            variables.narrowing(
                "profile",
                "Profile",
                Tag.PROFILE,
                SWEEP,
                description="profiles of the sweep, the loss each way in the name "
                "(regional-loss-1: 1 %); one chart each in the rows per profile",
                custom_all=False,
            )
        )
        .with_variable(variables.transport(PROFILES))
        .with_variable(variables.client((*PROFILES, matches(Tag.TRANSPORT, "transport"))))
        .with_variable(
            variables.narrowing(
                "series",
                "Series",
                Tag.SERIES,
                REQUESTS,
                description="mode · client version · parameters: one chart each",
                custom_all=False,
            )
        )
        .with_row(Row("Each series' tail against loss"))
        .with_panel(
            series_bars(
                "$series",
                "p50, p95 and p99 of one iteration's wall time at each profile of the sweep; "
                "the p50 and the p95 between the lighter bars of their 95 % intervals (a p95's "
                "needs about 72 iterations; a p99's needs 368, so the p99 is drawn alone), one "
                f"bar group per profile. {PROFILE_BY_NAME} A p95 or p99 that climbs while the "
                "p50 stays is losses in the tail: the iterations that met one. gnmi/stream's "
                "figures are update delays, not requests: left out.",
                (
                    *with_interval(P50, "p50"),
                    *with_interval(P95, "p95"),
                    last(SummaryField.P99_MS, "p99"),
                ),
                (*REQUESTS, matches(Tag.SERIES, "series")),
                "ms",
                by=Tag.PROFILE,
                width=THIRD,
            )
            .override_by_name("p99", config([("color", {"mode": "fixed", "fixedColor": "red"})]))
            .repeat("series")
            .repeat_direction("h")
            .max_per_row(3)
        )
        .with_row(Row("Each profile: losses met and what recovery cost"))
        .with_panel(
            series_bars(
                "At $profile: how often did an iteration meet a loss? (measured and model)",
                "measured: the share of successful iterations in which the runner's capture "
                "saw a TCP segment sent again, either way (recovered_share). model: the loss "
                "model's probability that at least one of an iteration's data segments (data, "
                "SYN, FIN; their p50, both ways) is lost, 1 - (1 - p)^n at the profile's loss "
                "p each way (loss_model_p_meet; none without loss). The measured share can "
                "fall a little short of the model: a lost answer that the device sends again "
                "before the runner's timer fires arrives looking like a first transmission. "
                "No interval here: the impairment table gives the share's (Clopper-Pearson). "
                f"{QUIC_UNSEEN}",
                (
                    last(SummaryField.RECOVERED_SHARE, "measured"),
                    last(SummaryField.LOSS_MODEL_P_MEET, "model"),
                ),
                REQUESTS,
                "percentunit",
            )
            .repeat("profile")
            .repeat_direction("h")
            .max_per_row(2)
        )
        .with_panel(
            series_bars(
                "At $profile: how long did repairing losses take? (ms per iteration)",
                "The recovery part of each successful iteration's time split (iteration field "
                "time_recovery_ms): the wait before a segment is sent again, and what a wait "
                "in which one was sent again took beyond its RTT (the device's own time in "
                "such a wait counts too). Its mean over the measured iterations, to set beside "
                "the model's expected extra time (the table below), its 95th percentile and "
                "its maximum. Most iterations meet no loss at these rates, so the p50 (the "
                "table) is mostly 0 and the mean is the figure to read. HTTP/3 shows 0: the "
                "capture cannot tell which QUIC datagram carries data sent again, so that "
                "time stays in the other parts.",
                (
                    _mean(time_field(RECOVERY), "mean"),
                    Column(f"percentile({quoted(time_field(RECOVERY))}, 95)", "p95"),
                    Column(f"max({quoted(time_field(RECOVERY))})", "max"),
                ),
                REQUESTS,
                "ms",
                measurement=Measurement.ITERATION,
            )
            .repeat("profile")
            .repeat_direction("h")
            .max_per_row(2)
        )
        .with_panel(
            series_bars(
                "At $profile: how many segments were sent again, and how many after a timeout? "
                "(per iteration, mean)",
                "Means over the successful iterations of what the capture counted: segments "
                "the runner sent again (SYN retries included), device segments that came "
                "again or late to fill a hole, retransmissions either way that waited at "
                "least Linux's 200 ms minimum timeout (a timeout, or a tail-loss probe with "
                "one segment out), SYNs or SYN-ACKs sent again (a lost one waits 1 s), and "
                "D-SACKs (a segment sent again that the receiver already had). The capture "
                "sits on the runner's side: a lost answer that the device sends again before "
                "the runner's timer fires arrives looking like a first transmission, and is "
                f"not counted. {QUIC_UNSEEN}",
                (
                    _mean(wire_field("retransmits_out"), "runner sent again"),
                    _mean(wire_field("retransmits_in"), "device sent again"),
                    _mean(wire_field("timeouts"), "timeouts"),
                    _mean(wire_field("syn_retries"), "SYN retries"),
                    _mean(wire_field("spurious"), "spurious (D-SACK)"),
                ),
                REQUESTS,
                "none",
                measurement=Measurement.ITERATION,
            )
            .repeat("profile")
            .repeat_direction("h")
            .max_per_row(2)
        )
        .with_row(Row("Measured against the loss model"))
        .with_panel(
            series_table(
                "Does the measured tail follow the loss model? (p95 and p99 per profile)",
                "The measured p50, p95 and p99, the first two between the ends of their 95 % "
                "intervals (CI low, CI high), beside the model's p95 and p99. The model's p95 "
                "(p99) is the p50 of the iterations without a retransmission (model clean "
                "p50) plus what one loss costs on average (a SYN 1 s, the end of a flight the "
                "RTT plus 200 ms, any other segment one RTT) when more than 5 % (1 %) of "
                "iterations should meet a loss, else the clean p50 alone. `against the "
                "model`: follows when the model's value lies inside the measured interval, "
                "above when the whole interval lies above it (a longer tail than the model "
                "says), below when it lies under it; not judged without an interval (a p99's "
                "needs 368 iterations) or without a model (no loss, QUIC). Two losses in one "
                "iteration are outside the model: where an iteration puts many segments at "
                "risk (ssh/fresh-conn at 2 %), its p95 and p99 may lie above the model for "
                "that alone.",
                (
                    *with_interval(P50, "p50"),
                    *with_interval(P95, "p95"),
                    last(SummaryField.LOSS_MODEL_P95_MS, "model p95"),
                    against(P95, latest(SummaryField.LOSS_MODEL_P95_MS), "p95 against the model"),
                    last(SummaryField.P99_MS, "p99"),
                    last(SummaryField.LOSS_MODEL_P99_MS, "model p99"),
                    against(P99, latest(SummaryField.LOSS_MODEL_P99_MS), "p99 against the model"),
                    last(SummaryField.LOSS_MODEL_CLEAN_P50_MS, "model clean p50"),
                ),
                REQUESTS,
                units({"p50": "ms", "p95": "ms"})
                | {name: "ms" for name in ("model p95", "p99", "model p99", "model clean p50")}
                | {"p95 against the model": "none", "p99 against the model": "none"},
                group_by=(Tag.SERIES, Tag.PROFILE),
                height=14,
            )
            .override_by_name(
                "p95 against the model", config([("mappings", against_mappings(*VERDICT_TEXTS))])
            )
            .override_by_name(
                "p99 against the model", config([("mappings", against_mappings(*VERDICT_TEXTS))])
            )
        )
        .with_panel(
            series_table(
                "How often did an iteration meet a loss, and what did it cost? (per profile)",
                "Successful iterations (n) and failed ones; those in which the capture saw a "
                "segment sent again, their share of the successful ones and the model's "
                "probability of meeting a loss, from the data segments an iteration puts on "
                "the wire (p50 each way: the packets at risk); the p50 of the recovery part "
                "(mostly 0 while fewer than half the iterations meet a loss) and the model's "
                "expected extra time per iteration (the loss rate times what every data "
                "segment's loss would cost: a mean, to read beside the mean recovery above). "
                f"{PROFILE_BY_NAME} {QUIC_UNSEEN}",
                (
                    last(SummaryField.N, "n"),
                    last(SummaryField.ERRORS, "failed"),
                    last(SummaryField.RECOVERED_ITERATIONS, "met a retransmission"),
                    last(SummaryField.RECOVERED_SHARE, "share"),
                    last(SummaryField.LOSS_MODEL_P_MEET, "model P(meet)"),
                    last(wire_p50_field("data_segments_out"), "data segments out"),
                    last(wire_p50_field("data_segments_in"), "data segments in"),
                    last(time_p50_field(RECOVERY), "recovery p50"),
                    last(SummaryField.LOSS_MODEL_EXTRA_MS, "model extra time"),
                    last(SummaryField.VERIFIED_RTT_MS, "verified RTT"),
                ),
                REQUESTS,
                {"share": "percentunit", "model P(meet)": "percentunit"}
                | {name: "ms" for name in ("recovery p50", "model extra time", "verified RTT")},
                group_by=(Tag.SERIES, Tag.PROFILE),
                height=14,
                width=FULL,
            )
        )
    )
    return render(board, profile_variable=None)
