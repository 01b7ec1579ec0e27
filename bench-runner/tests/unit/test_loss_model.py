"""The loss model beside a lossy figure: its probability, its costs, its quantiles."""

import itertools
import math

import pytest

from bench_runner.loss_model import (
    QUIC_MAX_ACK_DELAY_MS,
    RTO_MIN_MS,
    SUMMARY_COLUMNS,
    SYN_TIMEOUT_MS,
    estimate,
    extra_distribution,
    summary_fields,
    with_extra_at,
)
from bench_runner.wire.model import WireCounts, WireIteration


def _wire(
    retransmits: int = 0, *, data_out: int | None = 8, data_in: int | None = 8
) -> WireIteration:
    return WireIteration(
        round_trips=4,
        connects=1,
        packets_out=10,
        packets_in=10,
        segments_out=10,
        segments_in=10,
        bytes_out=500,
        bytes_in=2000,
        ip_bytes_out=1000,
        ip_bytes_in=2500,
        data_segments_out=data_out,
        data_segments_in=data_in,
        retransmits_out=retransmits if data_out is not None else None,
        retransmits_in=0 if data_out is not None else None,
    )


def test_no_loss_no_model() -> None:
    assert estimate(0.0, 30.0, [(100.0, _wire())]) is None


def test_quic_counts_give_no_model() -> None:
    """QUIC's packets cannot be told lost or sent again from the wire."""
    assert estimate(1.0, 30.0, [(100.0, _wire(data_out=None, data_in=None))]) is None


def test_probability_and_costs_follow_the_data_segments() -> None:
    """16 data segments: 2 handshake (a connect), 8 flight tails (4 round trips), 6 others."""
    samples = [(100.0 + i, _wire()) for i in range(99)] + [(400.0, _wire(1))]
    model = estimate(1.0, 30.0, samples)
    assert model is not None
    assert model.p_meet == pytest.approx(1 - 0.99**16)
    cost = 2 * SYN_TIMEOUT_MS + 8 * (30.0 + RTO_MIN_MS) + 6 * 30.0
    assert model.expected_extra_ms == pytest.approx(0.01 * cost)
    assert model.one_loss_ms == pytest.approx(cost / 16)
    assert model.clean_p50_ms == pytest.approx(149.0)
    assert model.measured_share == pytest.approx(0.01)
    # 14.9 % of iterations meet a loss, 1.1 % more than one: one loss at the p95, two at
    # the p99.
    assert (model.losses_p95, model.losses_p99) == (1, 2)
    # The model's tails: a clean iteration (100 to 198 ms) plus the extra time of 2 SYNs at
    # 1 s, 8 flight tails at 230 ms and 6 others at 30 ms.
    clean = [100.0 + i for i in range(99)]
    extra = extra_distribution([(2, SYN_TIMEOUT_MS), (8, 30.0 + RTO_MIN_MS), (6, 30.0)], 0.01)
    assert [model.p95_ms, model.p99_ms] == with_extra_at((0.95, 0.99), clean, extra)
    # No loss in 85.1 %; a SYN or SYN-ACK lost in 2.0 % (1 - 0.99^2), more than the p99
    # leaves out: the p99 carries a whole second.
    assert model.p95_ms is not None
    assert model.p99_ms is not None
    assert 149.0 < model.p95_ms < 198.0 + 30.0 + RTO_MIN_MS
    assert model.p99_ms >= 100.0 + SYN_TIMEOUT_MS


def test_the_extra_times_distribution_adds_each_kinds_losses() -> None:
    """Two kinds, by brute force: each of 3 segments costing 10 and 2 costing 100, lost with
    probability 0.3."""
    p = 0.3
    outcomes: dict[float, float] = {}
    for lost in itertools.product((0, 1), repeat=5):
        value = 10.0 * sum(lost[:3]) + 100.0 * sum(lost[3:])
        chance = math.prod(p if bit else 1 - p for bit in lost)
        outcomes[value] = outcomes.get(value, 0.0) + chance
    found = extra_distribution([(3, 10.0), (2, 100.0)], p)
    assert [value for value, _ in found] == sorted(outcomes)
    assert [chance for _, chance in found] == pytest.approx(
        [outcomes[value] for value in sorted(outcomes)]
    )


def test_clean_times_plus_the_extra_time() -> None:
    """Clean 10 or 20 ms (even odds) plus 100 ms one time in ten: 10 and 20 with 45 % each,
    110 and 120 with 5 %."""
    extra = [(0.0, 0.9), (100.0, 0.1)]
    assert with_extra_at((0.45, 0.9, 0.95, 0.99), [20.0, 10.0], extra) == [10.0, 20.0, 110.0, 120.0]


def test_quic_costs_are_probe_timeouts() -> None:
    """The same 16 packets over QUIC on a new connection: the first flights wait quic-go's
    first probe timeout (2 x 100 ms), a flight's last packet a probe timeout with half the
    RTT as its variation (RTT + 2 RTT + 25 ms), the others one RTT."""
    model = estimate(1.0, 30.0, [(100.0, _wire())], quic=True)
    assert model is not None
    cost = 2 * 200.0 + 8 * (3 * 30.0 + QUIC_MAX_ACK_DELAY_MS) + 6 * 30.0
    assert model.expected_extra_ms == pytest.approx(0.01 * cost)
    kept = _wire().model_copy(update={"connects": 0})
    model = estimate(1.0, 30.0, [(100.0, kept)], quic=True)
    assert model is not None
    assert model.one_loss_ms == pytest.approx((8 * (30.0 + 1.0 + 25.0) + 8 * 30.0) / 16)


def test_a_rare_loss_leaves_the_p95_clean() -> None:
    model = estimate(0.1, 30.0, [(100.0, _wire())])
    assert model is not None
    assert model.p_meet < 0.05
    assert model.p95_ms == model.clean_p50_ms == 100.0
    assert model.p99_ms is not None
    assert model.p99_ms > 100.0


def test_summary_fields_say_unknown_rather_than_zero() -> None:
    fields = summary_fields(None, None)
    assert tuple(fields) == SUMMARY_COLUMNS
    assert set(fields.values()) == {None}
    counts = WireCounts(available=True, per_iteration=[_wire(), _wire(1)], recovered_iterations=1)
    assert summary_fields(counts, None)["recovered_share"] == 0.5
