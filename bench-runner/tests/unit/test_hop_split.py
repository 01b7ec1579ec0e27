"""A relayed iteration's time by hop: the time split's part behind the WAN cut into the LAN
network, the relay and the device from what was measured, never more than the whole."""

import itertools
import random
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from rich.console import Console

from bench_runner.console import hop_split_table
from bench_runner.hop_split import (
    HOP_PARTS,
    HopSplit,
    relay_lan_ms,
    split_hops,
    summarize_hops,
)
from bench_runner.results import IterationRecord, ModeRun, RunResult
from bench_runner.roundtrips import RoundTrips
from bench_runner.runner import with_hop_splits
from bench_runner.wire.timeline import TimeSplit

DISJOINT_PARTS = (
    ("wan_network", "client", "stall", "recovery", "lan_network", "relay", "device"),
    ("wan_network", "client", "stall", "recovery", "lan_network", "relay_and_device"),
    ("wan_network", "client", "stall", "recovery", "beyond_wan"),
)
"""Parts that do not overlap: each set adds up to at most the wall time."""


def _split(network: float, device: float, client: float, stall: float = 0.0) -> TimeSplit:
    return TimeSplit(
        network_ms=network,
        device_ms=device,
        client_ms=client,
        stall_ms=stall,
        recovery_ms=0.0,
        stalls=0,
        device_stalls=0,
        client_stalls=0,
        unaccounted_ms=0.0,
    )


def _adds_up(hops: HopSplit, parts: tuple[str, ...]) -> float:
    return sum(getattr(hops, f"{part}_ms") or 0.0 for part in parts)


def test_the_head_end_tells_its_own_time_from_the_devices() -> None:
    """Behind the WAN 80 ms; the head-end timed 70 of them on the LAN, 15 round trips at
    2 ms: 30 ms of LAN network, 40 of the device, and 10 of the head-end's own."""
    hops = split_hops(_split(30.0, 80.0, 5.0, 1.0), 15, 2.0, relay_lan=70.0)
    assert hops.wan_network_ms == 30.0
    assert hops.beyond_wan_ms == 80.0
    assert hops.lan_network_ms == 30.0
    assert hops.device_ms == 40.0
    assert hops.relay_ms == 10.0
    assert hops.relay_and_device_ms == 50.0
    assert (hops.client_ms, hops.stall_ms, hops.recovery_ms) == (5.0, 1.0, 0.0)
    assert hops.clipped_ms == 0.0


def test_through_the_jump_host_the_relay_and_the_device_stay_one_part() -> None:
    hops = split_hops(_split(300.0, 120.0, 20.0), 18, 2.0, relay_lan=None)
    assert hops.lan_network_ms == 36.0
    assert hops.relay_and_device_ms == 84.0
    assert hops.relay_ms is None
    assert hops.device_ms is None


@pytest.mark.parametrize(("round_trips", "lan_rtt_ms"), [(None, 2.0), (18, None), (None, None)])
def test_an_uncounted_lan_is_unknown_never_guessed(
    round_trips: int | None, lan_rtt_ms: float | None
) -> None:
    """The OpenSSH client's jump modes count no LAN round trip; a real site's LAN RTT is not
    verified: the LAN network and what it is cut from stay null."""
    hops = split_hops(_split(300.0, 120.0, 20.0), round_trips, lan_rtt_ms, relay_lan=None)
    assert hops.lan_network_ms is None
    assert hops.relay_and_device_ms is None
    assert hops.beyond_wan_ms == 120.0
    headend = split_hops(_split(30.0, 80.0, 5.0), round_trips, lan_rtt_ms, relay_lan=70.0)
    assert headend.relay_ms == 10.0  # the head-end's LAN work is timed whatever the count
    assert headend.device_ms is None


def test_each_part_is_clipped_to_what_it_is_cut_from() -> None:
    # More LAN round trips than time behind the WAN (a verified RTT longer than the LAN's
    # while the iteration ran): all of it is the LAN network, nothing is left for the rest.
    jump = split_hops(_split(300.0, 20.0, 20.0), 18, 2.0, relay_lan=None)
    assert (jump.lan_network_ms, jump.relay_and_device_ms) == (20.0, 0.0)
    assert jump.clipped_ms == 16.0
    # The head-end's clock says its LAN work took longer than the capture saw behind the WAN
    # (two hosts' clocks): its LAN work is cut at what the capture saw, and the LAN network
    # at its LAN work.
    headend = split_hops(_split(30.0, 50.0, 5.0), 40, 2.0, relay_lan=60.0)
    assert headend.relay_ms == 0.0
    assert headend.lan_network_ms == 50.0
    assert headend.device_ms == 0.0
    assert headend.relay_and_device_ms == 0.0
    assert headend.clipped_ms == 10.0 + 30.0
    summary = summarize_hops(2.0, [jump, headend])
    assert summary is not None
    assert summary.max_clipped_ms == 40.0


def test_the_parts_never_add_up_to_more_than_the_wall_time() -> None:
    """Whatever the relay's clock, the counts and the verified LAN RTT say: seeded draws of
    splits within their wall time, LAN work beyond the wall (clocks of two hosts), counts
    times RTTs beyond the time behind the WAN."""
    draw = random.Random(29)
    for _ in range(5000):
        wall = draw.uniform(0.0, 2000.0)
        cuts = sorted(draw.uniform(0.0, wall) for _ in range(5))
        shares = [b - a for a, b in itertools.pairwise([0.0, *cuts])]
        split = _split(shares[0], shares[1], shares[2], shares[3])
        split = split.model_copy(update={"recovery_ms": shares[4]})
        round_trips = draw.choice([None, 0, draw.randrange(0, 200)])
        lan_rtt_ms = draw.choice([None, draw.uniform(0.0, 50.0)])
        relay_lan = draw.choice([None, draw.uniform(-1.0, 2.0 * wall + 1.0)])
        hops = split_hops(split, round_trips, lan_rtt_ms, relay_lan)
        for part in HOP_PARTS:
            value = getattr(hops, f"{part}_ms")
            assert value is None or value >= 0.0, (part, hops)
        for parts in DISJOINT_PARTS:
            assert _adds_up(hops, parts) <= wall + 1e-9, (parts, wall, hops)
        if hops.lan_network_ms is not None and hops.relay_and_device_ms is not None:
            assert hops.lan_network_ms + hops.relay_and_device_ms == pytest.approx(
                hops.beyond_wan_ms
            )
        if hops.relay_ms is not None and hops.device_ms is not None:
            assert hops.relay_ms + hops.device_ms == pytest.approx(hops.relay_and_device_ms)


def test_the_relays_lan_work_is_the_head_ends_phases() -> None:
    assert relay_lan_ms({"lan_connect": 12.0, "lan_commands": 40.0, "headend": 3.0}) == 52.0
    assert relay_lan_ms({"lan_connect": 0.0, "lan_commands": 40.0}) == 40.0
    assert relay_lan_ms({"jump_login": 200.0, "device_login": 300.0}) is None
    assert relay_lan_ms(None) is None


def test_the_medians_are_of_the_iterations_that_have_the_part() -> None:
    first = split_hops(_split(30.0, 80.0, 5.0), 15, 2.0, relay_lan=70.0)
    second = split_hops(_split(32.0, 90.0, 7.0), 15, 2.0, relay_lan=76.0)
    summary = summarize_hops(2.0, [first, second])
    assert summary is not None
    assert set(summary.p50_ms) == set(HOP_PARTS)
    assert summary.p50_ms["wan_network"] == 31.0
    assert summary.p50_ms["device"] == 43.0
    assert summary.p50_ms["relay"] == 12.0
    uncounted = summarize_hops(None, [split_hops(_split(30.0, 80.0, 5.0), None, None, None)])
    assert uncounted is not None
    assert uncounted.p50_ms["lan_network"] is None
    assert uncounted.p50_ms["beyond_wan"] == 80.0
    assert summarize_hops(2.0, []) is None


def test_a_relayed_modes_records_get_their_hops_from_their_own_measurements() -> None:
    started = datetime(2026, 11, 28, tzinfo=UTC)
    timed = IterationRecord(
        1,
        started,
        120.0,
        None,
        phases={"lan_connect": 0.0, "lan_commands": 70.0, "headend": 3.0},
        time_split=_split(30.0, 80.0, 5.0),
        lan_round_trips=15,
    )
    uncaptured = replace(timed, iteration=2, time_split=None)
    with_hops, without = with_hop_splits([timed, uncaptured], 2.0)
    assert with_hops.hop_split == split_hops(_split(30.0, 80.0, 5.0), 15, 2.0, 70.0)
    assert without.hop_split is None


def test_the_hop_table_shows_each_part_and_a_dash_for_what_is_not_told(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    headend = split_hops(_split(30.0, 80.0, 5.0), 15, 2.0, relay_lan=70.0)
    jump = split_hops(_split(300.0, 120.0, 20.0), None, 2.0, relay_lan=None)
    run.modes[0].mode = "proxy/keep-alive"
    run.modes[0].hop_split = summarize_hops(2.0, [headend])
    run.modes[0].lan_round_trips = RoundTrips(method="headend", per_iteration=[15], p50=15.0)
    run.modes[1].mode = "jump/reuse-conn"
    run.modes[1].hop_split = summarize_hops(2.0, [jump])
    console = Console(width=250, record=True)
    console.print(hop_split_table(run))
    rows = {line.split()[1]: line for line in console.export_text().splitlines() if "/" in line}
    cells = [cell.strip() for cell in rows["proxy/keep-alive"].split("│")[1:-1]]
    assert cells[3:] == ["15", "30.0", "30.0", "10.0", "40.0", "50.0", "5.0", "0.0", "0.0", "0.0"]
    cells = [cell.strip() for cell in rows["jump/reuse-conn"].split("│")[1:-1]]
    assert cells[3:] == ["-", "300.0", "-", "-", "-", "-", "20.0", "0.0", "0.0", "0.0"]
