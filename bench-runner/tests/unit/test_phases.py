import asyncio
import time

import pytest

from bench_runner.modes.clients.asyncssh_connect import ConnectTimeline
from bench_runner.modes.clients.http_phases import HttpTrace
from bench_runner.phases import (
    ITERATION_COLUMNS,
    PHASES,
    PhaseTimer,
    iteration_fields,
    summarize_phases,
    summary_fields,
)


def test_timer_sums_repeated_phases_and_starts_over() -> None:
    timer = PhaseTimer()
    timer.add("commands", 0.010)
    timer.add("tcp_connect", 0.001)
    timer.add("commands", 0.005)
    assert timer.take() == {"tcp_connect": pytest.approx(1.0), "commands": pytest.approx(15.0)}
    assert list(timer.take()) == []


def test_take_keeps_the_order_of_the_phases() -> None:
    timer = PhaseTimer()
    for name in reversed(PHASES):
        timer.add(name, 0.001)
    assert list(timer.take()) == list(PHASES)


def test_unknown_phase_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown phase"):
        PhaseTimer().add("handshake", 0.1)


def test_measure_times_the_block_only_when_it_completes() -> None:
    timer = PhaseTimer()
    with timer.measure("auth"):
        pass
    with pytest.raises(RuntimeError), timer.measure("close"):
        raise RuntimeError("failed")
    assert list(timer.take()) == ["auth"]


def test_summary_is_the_median_per_phase() -> None:
    summary = summarize_phases(
        [{"connect": 10.0, "commands": 1.0}, {"connect": 30.0}, {"connect": 20.0, "commands": 3.0}]
    )
    assert summary is not None
    assert summary.p50_ms == {"connect": 20.0, "commands": 2.0}
    assert summarize_phases([{}, {}]) is None
    assert summary_fields(summary)["phase_connect_p50_ms"] == 20.0
    assert summary_fields(None)["phase_connect_p50_ms"] is None


def test_iteration_fields_cover_every_phase() -> None:
    fields = iteration_fields({"auth": 2.5})
    assert tuple(fields) == ITERATION_COLUMNS
    assert fields["phase_auth_ms"] == 2.5
    assert fields["phase_close_ms"] is None


def test_http_trace_maps_httpcore_steps_to_phases() -> None:
    timer = PhaseTimer()
    trace = HttpTrace(timer)

    async def request() -> None:
        for step in (
            "connection.connect_tcp",
            "connection.start_tls",
            "http11.send_request_headers",
            "http11.send_request_body",
            "http11.receive_response_headers",
            "http11.receive_response_body",
            "http11.response_closed",
        ):
            await trace(f"{step}.started", {})
            await trace(f"{step}.complete", {})
        await trace("connection.connect_tcp.started", {})
        await trace("connection.connect_tcp.failed", {})  # not a completed phase
        await trace("http11.something_new.started", {})

    asyncio.run(request())
    assert list(timer.take()) == [
        "tcp_connect",
        "tls_handshake",
        "send_request",
        "receive_headers",
        "receive_body",
        "close",
    ]


def test_connect_timeline_splits_setup_at_the_callbacks() -> None:
    timeline = ConnectTimeline()
    client = timeline.client_object
    client.connected_at = timeline.started + 0.002
    client.auth_started_at = timeline.started + 0.010
    time.sleep(0.015)  # connect() returns after the callbacks
    timer = PhaseTimer()
    timeline.record(timer)
    phases = timer.take()
    assert phases["tcp_connect"] == pytest.approx(2.0)
    assert phases["key_exchange"] == pytest.approx(8.0)
    assert phases["auth"] >= 5.0
