"""What a lossy profile should cost a mode, from its counted packets (pure).

Beside each figure measured under loss, the model says how often an iteration should meet a
loss and what that should cost, so the report can tell where the measured tail follows the
transport's retransmission rules and where it does not (TCP's are Linux's, QUIC's RFC 9002's
as quic-go applies them; docs/bad-links.md cites them):

- An iteration's **packets at risk** are its data segments each way (data, SYN, FIN): a lost
  pure ACK is covered by the next one and costs nothing. With loss ``p`` in each direction,
  drawn per packet, ``P(meet) = 1 - (1 - p)^n`` over their p50 ``n``.
- **One loss costs**, by the segment lost: a SYN or SYN-ACK, the 1 s initial retransmission
  timeout (RFC 6298); the last segment of a flight (nothing after it to trigger duplicate
  ACKs), a timeout: the RTT plus the 200 ms minimum (or a tail-loss probe with one segment
  out, which waits as long); any other segment, fast recovery: about one RTT. A flight is
  what one side sends before it waits: two per round trip counted on the wire.
- QUIC (its client's counts: ack-eliciting packets each way): a lost packet of the first
  flights (client Initial, server's first flight) waits quic-go's first probe timeout, twice
  its 100 ms initial RTT; the last of a later flight, a probe timeout: the smoothed
  RTT, four times its variation and the peer's 25 ms maximum ACK delay (the variation is
  half the RTT after a new connection's one sample, about nothing on a long-kept one), three
  RTTs and 25 ms on a new connection, one RTT and 26 ms on a kept one; any other packet,
  about one RTT (detected by later packets acknowledged).
- The expected extra time is ``p`` times the sum of those costs; ``one_loss_ms`` their mean,
  what an iteration that meets exactly one loss loses.
- The losses an iteration meets are binomial over each kind of segment, and their costs add
  up to its extra time. The model's quantile ``q`` is the ``q``-quantile of a clean
  iteration's time (drawn from the iterations that saw no retransmission) plus that extra
  time, drawn independently: the clean tail where more than ``q`` of iterations meet no
  loss; a whole SYN timeout where more than ``1 - q`` of them lose a SYN (a tail the mean
  cost of a loss would understate); several losses where an iteration has many segments
  (five fresh SSH connections, 171 data segments, meet 3.4 on average at 2 %).

The measured side is the share of iterations in which the capture saw a segment sent again
(``wire.recovered_iterations``; for QUIC, its client counted a loss or a probe timeout). It
can fall short of ``P(meet)``: a loss the device's timer repairs before the runner's fires
is not seen (wire/recovery.py), nor one repaired after the iteration returned.
"""

import bisect
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel

from bench_runner.influx_schema import SummaryField
from bench_runner.stats import binomial_cdf, percentile
from bench_runner.wire.model import WireCounts, WireIteration

SYN_TIMEOUT_MS = 1000.0
"""RFC 6298's initial retransmission timeout, which a lost SYN or SYN-ACK waits."""
RTO_MIN_MS = 200.0
"""Linux's minimum retransmission timeout (TCP_RTO_MIN)."""
QUIC_FIRST_PTO_MS = 200.0
"""quic-go's probe timeout before its first RTT sample: twice its 100 ms initial RTT
(internal/utils/rtt_stats.go; RFC 9002's rule, from 333 ms, would wait 1 s)."""
QUIC_MAX_ACK_DELAY_MS = 25.0
"""The peer's maximum ACK delay (quic-go's default; RFC 9000's too)."""
QUIC_GRANULARITY_MS = 1.0
"""RFC 9002's timer granularity: the least a probe timeout adds for RTT variation."""


@dataclass(frozen=True)
class LossCosts:
    """What one lost packet costs, by where it falls in an iteration."""

    handshake_ms: float
    """A packet of a connection's first flights (SYN, SYN-ACK; QUIC's Initial flights)."""
    tail_ms: float
    """The last packet of a later flight: a timer repairs it."""
    inner_ms: float
    """Any other packet: the packets after it tell it lost."""


def tcp_costs(rtt_ms: float) -> LossCosts:
    return LossCosts(SYN_TIMEOUT_MS, rtt_ms + RTO_MIN_MS, rtt_ms)


def quic_costs(rtt_ms: float, *, new_connections: bool) -> LossCosts:
    """RFC 9002's probe timeout (6.2.1) with the RTT variation a connection has: half the
    RTT after a new connection's single sample, nearly none once many samples agree."""
    variation = 4.0 * rtt_ms / 2.0 if new_connections else QUIC_GRANULARITY_MS
    return LossCosts(QUIC_FIRST_PTO_MS, rtt_ms + variation + QUIC_MAX_ACK_DELAY_MS, rtt_ms)


QUANTILES = (0.95, 0.99)


class LossModel(BaseModel):
    """The model beside a mode measured under loss (``modes[].loss_model``)."""

    loss_pct: float
    """The profile's loss, each way."""
    data_segments_p50: float
    connects_p50: float
    round_trips_p50: float
    p_meet: float
    """The probability that an iteration meets at least one loss, 0 to 1."""
    losses_p95: int | None = None
    """The 95th percentile of the losses an iteration meets (binomial)."""
    losses_p99: int | None = None
    expected_extra_ms: float
    one_loss_ms: float
    """What one loss costs, on average over the iteration's segments."""
    clean_p50_ms: float | None
    """The p50 of the iterations without a retransmission; null when none was clean."""
    p95_ms: float | None
    p99_ms: float | None
    measured_share: float | None
    """The share of successful iterations in which a segment was sent again."""


def losses_at(q: float, segments: int, p: float) -> int:
    """The ``q``-quantile of the losses among ``segments`` each lost with probability
    ``p``: the fewest ``k`` with P(losses <= k) >= q."""
    if segments <= 0 or p <= 0:
        return 0
    for k, cumulative in enumerate(binomial_cdf(segments, p)):
        if cumulative >= q:
            return k
    return segments


TAIL_LEFT_OUT = 1e-12
"""The probability beyond which a kind's binomial is cut short: far below any quantile
the model gives."""


def extra_distribution(kinds: Sequence[tuple[int, float]], p: float) -> list[tuple[float, float]]:
    """The extra time an iteration loses, as (value, probability) pairs in value order, when
    each of ``n`` segments of a kind (``kinds``: n and the cost of one loss) is lost with
    probability ``p``: the sum of the kinds' binomial losses, built kind by kind."""
    extra: dict[float, float] = {0.0: 1.0}
    for segments, cost_ms in kinds:
        if segments <= 0:
            continue
        cdf = binomial_cdf(segments, p)
        pmf = [cdf[0]] + [high - low for low, high in itertools.pairwise(cdf)]
        kept = next((k for k, c in enumerate(cdf) if c >= 1.0 - TAIL_LEFT_OUT), segments)
        summed: dict[float, float] = {}
        for value, chance in extra.items():
            for k in range(kept + 1):
                total = value + k * cost_ms
                summed[total] = summed.get(total, 0.0) + chance * pmf[k]
        extra = summed
    return sorted(extra.items())


def with_extra_at(
    quantiles: Sequence[float], clean_ms: Sequence[float], extra: Sequence[tuple[float, float]]
) -> list[float]:
    """The ``quantiles`` of a clean iteration's time (drawn from ``clean_ms``) plus an extra
    time drawn from ``extra``, independently: the smallest candidate sum at which
    P(time <= x) = sum over the extra values of P(extra = v) x F_clean(x - v) reaches q."""
    clean = sorted(clean_ms)

    def share_at_most(x: float) -> float:
        below = sum(chance * bisect.bisect_right(clean, x - value) for value, chance in extra)
        return below / len(clean)

    candidates = sorted({c + value for c in clean for value, _ in extra})
    found = []
    for q in quantiles:
        # The share is non-decreasing along the candidates: the first that reaches q.
        low, high = 0, len(candidates) - 1
        while low < high:
            middle = (low + high) // 2
            if share_at_most(candidates[middle]) >= q:
                high = middle
            else:
                low = middle + 1
        found.append(candidates[low])
    return found


def estimate(
    loss_pct: float,
    rtt_ms: float,
    samples: Sequence[tuple[float, WireIteration]],
    *,
    quic: bool = False,
) -> LossModel | None:
    """The model for a mode's successful iterations (wall time, wire counts) under
    ``loss_pct`` each way at ``rtt_ms``, by TCP's rules or ``quic``'s; None without loss,
    or without the counts it needs (no capture, or a QUIC client that counts nothing)."""
    counted = [
        (wall_ms, wire)
        for wall_ms, wire in samples
        if wire.data_segments_out is not None and wire.data_segments_in is not None
    ]
    if loss_pct <= 0 or not counted:
        return None
    p = loss_pct / 100.0
    data = percentile(
        [float((w.data_segments_out or 0) + (w.data_segments_in or 0)) for _, w in counted], 0.5
    )
    connects = percentile([float(w.connects) for _, w in counted], 0.5)
    round_trips = percentile([float(w.round_trips) for _, w in counted], 0.5)
    costs = quic_costs(rtt_ms, new_connections=connects > 0) if quic else tcp_costs(rtt_ms)
    handshake = min(2.0 * connects, data)
    tails = min(2.0 * round_trips, data - handshake)
    inner = data - handshake - tails
    cost_ms = handshake * costs.handshake_ms + tails * costs.tail_ms + inner * costs.inner_ms
    one_loss_ms = cost_ms / data if data else 0.0
    p_meet = 1.0 - (1.0 - p) ** data
    clean = [wall_ms for wall_ms, wire in counted if wire.recovered is False]
    clean_p50 = percentile(clean, 0.5) if clean else None
    recovered = sum(1 for _, wire in counted if wire.recovered)
    kinds = [
        (round(handshake), costs.handshake_ms),
        (round(tails), costs.tail_ms),
        (round(inner), costs.inner_ms),
    ]
    modelled = (
        with_extra_at(QUANTILES, clean, extra_distribution(kinds, p)) if clean else [None, None]
    )
    quantile_ms = dict(zip(QUANTILES, modelled, strict=True))
    return LossModel(
        loss_pct=loss_pct,
        data_segments_p50=data,
        connects_p50=connects,
        round_trips_p50=round_trips,
        p_meet=p_meet,
        losses_p95=losses_at(0.95, round(data), p),
        losses_p99=losses_at(0.99, round(data), p),
        expected_extra_ms=p * cost_ms,
        one_loss_ms=one_loss_ms,
        clean_p50_ms=clean_p50,
        p95_ms=quantile_ms[0.95],
        p99_ms=quantile_ms[0.99],
        measured_share=recovered / len(counted),
    )


SUMMARY_COLUMNS: tuple[str, ...] = (
    SummaryField.RECOVERED_ITERATIONS,
    SummaryField.RECOVERED_SHARE,
    SummaryField.LOSS_MODEL_P_MEET,
    SummaryField.LOSS_MODEL_EXTRA_MS,
    SummaryField.LOSS_MODEL_CLEAN_P50_MS,
    SummaryField.LOSS_MODEL_P95_MS,
    SummaryField.LOSS_MODEL_P99_MS,
)
"""Per-mode CSV columns and InfluxDB ``mode_summary`` fields."""


def summary_fields(wire: WireCounts | None, model: LossModel | None) -> dict[str, float | None]:
    """How often a mode's iterations met a loss, and the model beside it; None where
    unknown."""
    recovered = wire.recovered_iterations if wire is not None else None
    counted = len(wire.per_iteration) if wire is not None else 0
    values = (
        recovered,
        recovered / counted if recovered is not None and counted else None,
        *(
            (model.p_meet, model.expected_extra_ms, model.clean_p50_ms, model.p95_ms, model.p99_ms)
            if model is not None
            else (None,) * 5
        ),
    )
    return dict(zip(SUMMARY_COLUMNS, values, strict=True))
