"""Fresh SSH connections over a path that loses 2 % of its packets each way: the capture
sees the segments sent again, and the time they cost is recovery in each iteration's split."""

import math
from typing import Any

from conftest import LOSSY_ITERATIONS, BenchRun

LOSS = 0.02
MODE = "ssh/fresh-conn"
SIGMAS = 5.0
TIMER_WAIT_MS = 195.0
"""A wait the retransmission timer set: Linux's 200 ms minimum, less the stamps' slack."""
PARTS = ("network_ms", "device_ms", "client_ms", "stall_ms", "recovery_ms")
ROUNDING_MS = 1e-6


def _mode(run: BenchRun) -> dict[str, Any]:
    assert run.exit_code == 0, run.output[-3000:]
    assert run.results["profile"]["loss_pct"] == LOSS * 100
    (mode,) = [mode for mode in run.results["modes"] if mode["mode"] == MODE]
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
