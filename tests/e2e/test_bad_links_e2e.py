"""Fresh SSH connections over a path that loses 2 % of its packets each way: the capture
sees the segments sent again, and the time they cost is recovery in each iteration's split.
Fresh QUIC connections over it: quic-go counts its own recovery, which the capture cannot."""

import math
from typing import Any

from conftest import LOSSY_ITERATIONS, BenchRun

LOSS = 0.02
MODE = "ssh/fresh-conn"
QUIC_MODE = "h3/fresh-conn"
SKIPPED_NUMBERS = 10
"""Far more than quic-go's server skips in 150 connections of a few application packets
each: a skip falls among a connection's first five with probability 2 in 512."""
QUIC_COUNTERS = (
    "data_segments_out",
    "data_segments_in",
    "retransmits_out",
    "retransmits_in",
    "timeouts",
    "syn_retries",
    "spurious",
    "reordered_in",
)
SIGMAS = 5.0
TIMER_WAIT_MS = 195.0
"""A wait the retransmission timer set: Linux's 200 ms minimum, less the stamps' slack."""
PARTS = ("network_ms", "device_ms", "client_ms", "stall_ms", "recovery_ms")
ROUNDING_MS = 1e-6


def _mode(run: BenchRun, name: str = MODE) -> dict[str, Any]:
    assert run.exit_code == 0, run.output[-3000:]
    assert run.results["profile"]["loss_pct"] == LOSS * 100
    (mode,) = [mode for mode in run.results["modes"] if mode["mode"] == name]
    assert mode["wire"]["available"], mode["wire"]["reason"]
    assert len(mode["wire"]["per_iteration"]) == mode["stats"]["n"] == len(mode["samples_ms"])
    return mode


def test_every_lost_segment_of_the_runner_is_seen_sent_again(lossy_run: BenchRun) -> None:
    """The capture sees every segment the runner sends, before the impaired path: each of
    its data segments the engine drops (2 %, drawn per wire packet) is sent again, so the
    retransmissions counted cannot fall below the binomial's lower bound (5 sigma) of the
    losses among the data segments it counted. An iteration with one is never clean."""
    mode = _mode(lossy_run)
    wires = mode["wire"]["per_iteration"]
    sent = sum(wire["data_segments_out"] for wire in wires)
    lower = sent * LOSS - SIGMAS * math.sqrt(sent * LOSS * (1 - LOSS))
    assert lower > 0, sent
    assert sum(wire["retransmits_out"] for wire in wires) >= lower, (sent, lower)
    resent = [wire for wire in wires if wire["retransmits_out"] + wire["retransmits_in"]]
    assert mode["wire"]["recovered_iterations"] == len(resent)
    model = mode["loss_model"]
    assert model is not None
    assert 0 < model["p_meet"] < 1
    assert model["measured_share"] == len(resent) / len(wires)


def test_recovery_is_a_part_of_the_iterations_that_met_a_loss(lossy_run: BenchRun) -> None:
    """Recovery appears only in iterations in which a segment was sent again, the parts
    still never exceed the wall time, and a retransmission timer's wait shows in full."""
    mode = _mode(lossy_run)
    splits = mode["time_split"]["per_iteration"]
    timed_out: list[float] = []
    for wire, split, wall_ms in zip(
        mode["wire"]["per_iteration"], splits, mode["samples_ms"], strict=True
    ):
        assert sum(split[part] for part in PARTS) <= wall_ms + ROUNDING_MS, (split, wall_ms)
        resent = wire["retransmits_out"] + wire["retransmits_in"]
        if split["recovery_ms"] > 0:
            assert resent, (wire, split)
        if wire["timeouts"]:
            timed_out.append(split["recovery_ms"])
    assert timed_out, f"no retransmission timer fired in {LOSSY_ITERATIONS} iterations at 2 % loss"
    assert max(timed_out) >= TIMER_WAIT_MS, timed_out


def test_quic_go_counts_the_losses_its_iterations_waited_for(lossy_run: BenchRun) -> None:
    """A fresh QUIC connection cannot answer before four datagrams have each arrived: the
    client's Initial, the server's first flight (at least one), the client's Finished with
    the request, the response. A loss of any is repaired inside the iteration, and quic-go
    counts it there: its probe timeout fires (it waits for an acknowledgment of its Initial,
    its Finished or its request, or for the server's flight), or the server's packet sent
    again arrives with a higher number than the lost one's, a gap. P(no loss among 4 x 150
    such datagrams at 2 %) = 0.98^600 < 1e-5. Gaps are no more than the path can have lost
    (the binomial's upper bound, 5 sigma). Every counter is the client's, never null;
    an iteration with any is not clean; the capture places no QUIC time in recovery."""
    mode = _mode(lossy_run, QUIC_MODE)
    wires = mode["wire"]["per_iteration"]
    assert len(wires) == LOSSY_ITERATIONS
    for wire in wires:
        assert all(wire[name] is not None for name in QUIC_COUNTERS), wire
        # Initial and Finished (with the request) out; Initial or Handshake and the response in.
        assert wire["data_segments_out"] >= 2, wire
        assert wire["data_segments_in"] >= 2, wire
    # Nor more than the path lost: each lost datagram of the server's removes at most two
    # packet numbers (an Initial and a Handshake packet share one), and quic-go's server
    # skips a number in at most a few of these short connections (one in its first 3 to
    # 514 packets).
    sent_in = sum(wire["packets_in"] for wire in wires) / (1 - LOSS)
    lost_in = sent_in * LOSS + SIGMAS * math.sqrt(sent_in * LOSS * (1 - LOSS))
    missing = sum(wire["retransmits_in"] for wire in wires)
    assert missing <= 2 * lost_in + SKIPPED_NUMBERS, (missing, lost_in)
    met = [wire for wire in wires if _repairs(wire)]
    assert met, f"no loss counted in {LOSSY_ITERATIONS} fresh QUIC connections at 2 % loss"
    assert mode["wire"]["recovered_iterations"] == len(met)
    model = mode["loss_model"]
    assert model is not None
    assert model["measured_share"] == len(met) / len(wires)
    assert all(split["recovery_ms"] == 0 for split in mode["time_split"]["per_iteration"])


def _repairs(wire: dict[str, Any]) -> int:
    return int(wire["retransmits_out"] + wire["retransmits_in"] + wire["timeouts"])
