import asyncio
import dataclasses
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime

import pytest

from bench_runner import runner as runner_module
from bench_runner.modes import MODES_BY_NAME, Mode, Session, Target
from bench_runner.modes.base import ClientRecovery, ReportedSpan, Transport
from bench_runner.modes.row import Plugin
from bench_runner.precision import StoppingRule
from bench_runner.protocols import quic
from bench_runner.results import IterationRecord, ModeRun
from bench_runner.rtt_probe import QUIC_VERSION_NEGOTIATION, check_rtt
from bench_runner.runner import (
    Measurement,
    RttVerification,
    RunPlan,
    assemble,
    run_iteration,
    run_mode,
    wire_counts,
    wire_protocol,
    with_client_recovery,
)
from bench_runner.validation import IterationError
from bench_runner.wire.handshake_model import unavailable
from bench_runner.wire.model import WireIteration

COMMANDS = ("show version", "show clock")


class ScriptedSession:
    def __init__(
        self, outputs: list[str] | None = None, error: Exception | None = None, delay_s: float = 0.0
    ) -> None:
        self._outputs = outputs or []
        self._error = error
        self._delay_s = delay_s

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        await asyncio.sleep(self._delay_s)
        if self._error is not None:
            raise self._error
        return self._outputs


def run(session: ScriptedSession, timeout_s: float = 5.0) -> tuple[float, str | None]:
    timing, error = asyncio.run(run_iteration(session, COMMANDS, timeout_s))
    return timing.wall_ms, error


def test_successful_iteration_is_timed() -> None:
    wall_ms, error = run(ScriptedSession(["version text", "clock text"], delay_s=0.02))
    assert error is None
    assert 15.0 <= wall_ms < 1000.0


def test_the_kernel_clock_span_lies_inside_the_wall_time() -> None:
    """The span the captured packets are cut at is the measured one, its clock read inside
    the wall time's: never longer than the wall time, whatever else runs on the host."""
    timing, _ = asyncio.run(run_iteration(ScriptedSession(["a", "b"], delay_s=0.02), COMMANDS, 5.0))
    span_ns = timing.ended_ns - timing.started_ns
    assert 15_000_000 <= span_ns <= timing.wall_ns
    assert timing.span().cut_end_ns() == timing.ended_ns


def test_invalid_output_names_the_command() -> None:
    _, error = run(ScriptedSession(["version text", "% Invalid input detected"]))
    assert error == "show clock: % Invalid input detected"


def test_combined_output_is_validated_as_one() -> None:
    _, error = run(ScriptedSession([""]))
    assert error == "show version/show clock: empty output"


def test_transport_errors_are_recorded_not_raised() -> None:
    _, error = run(ScriptedSession(error=ConnectionResetError("peer reset")))
    assert error == "ConnectionResetError: peer reset"
    _, error = run(ScriptedSession(error=IterationError("show clock: HTTP 401: ")))
    assert error == "show clock: HTTP 401: "


class IncompatiblePeerError(Exception):
    """Stands for a client library's own error type (paramiko's IncompatiblePeer when the
    device offers no key exchange it implements), which the runner does not know."""


def test_a_client_librarys_own_error_fails_the_iteration_not_the_run() -> None:
    _, error = run(ScriptedSession(error=IncompatiblePeerError("no acceptable kex algorithm")))
    assert error == "IncompatiblePeerError: no acceptable kex algorithm"


def test_cancellation_still_stops_the_run() -> None:
    with pytest.raises(asyncio.CancelledError):
        run(ScriptedSession(error=asyncio.CancelledError()))


def test_timeout_is_a_failure() -> None:
    wall_ms, error = run(ScriptedSession(["x", "y"], delay_s=1.0), timeout_s=0.05)
    assert error == "timed out after 0.05 s"
    assert wall_ms < 1000.0


def never_opened(mode: Mode, target: Target) -> AbstractAsyncContextManager[Session]:
    """A session that must not be opened: the RTT gate refuses the mode first."""
    raise AssertionError("the gate should have stopped the mode")


REUSE = MODES_BY_NAME["ssh/reuse-conn"]
NEVER_OPENED = dataclasses.replace(
    REUSE, row=dataclasses.replace(REUSE.row, session=Plugin("test_runner:never_opened"))
)


def test_rtt_gate_refuses_a_mode_and_marks_it_unpublished(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runner_module, "RTT_REPROBE_PAUSE_S", 0.0)

    async def scenario() -> ModeRun:
        server = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        target = Target(
            host="127.0.0.1", ssh_port=port, https_port=port, username="u", password="p"
        )
        plan = RunPlan(
            COMMANDS, StoppingRule(fixed_iterations=2), warmup=1, iteration_timeout_s=5.0
        )
        async with server:
            # Loopback answers in well under a millisecond: 30 ms of delay is not in effect.
            return await run_mode(NEVER_OPENED, target, plan, 30.0, lambda ok: None)

    result = asyncio.run(scenario()).result
    assert not result.ok
    assert not result.published
    assert result.rtt_check is not None
    assert not result.rtt_check.passed
    assert result.rtt_check.attempts == runner_module.RTT_PROBE_ATTEMPTS
    assert result.stats.n == 0
    assert result.error_messages[0].startswith("rtt gate: verified RTT")
    assert result.resources is None
    assert result.handshakes is None  # not measured: no connection to speak of


OVER_QUIC = dataclasses.replace(
    NEVER_OPENED,
    row=dataclasses.replace(
        NEVER_OPENED.row,
        mode=dataclasses.replace(NEVER_OPENED.row.mode, name=f"{Transport.H3}/reuse-conn"),
    ),
)


def test_an_http3_mode_is_gated_on_its_udp_port_with_version_negotiation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The mode's QUIC port is probed with Version Negotiation exchanges; the refusal
    records the method."""
    monkeypatch.setattr(runner_module, "RTT_REPROBE_PAUSE_S", 0.0)
    answered: list[bytes] = []

    class Negotiator(asyncio.DatagramProtocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.transport: asyncio.DatagramTransport = transport  # type: ignore[assignment]

        def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
            answered.append(data)
            probe = quic.parse_long_header(data)
            ids = bytes([len(probe.scid)]) + probe.scid + bytes([len(probe.dcid)]) + probe.dcid
            self.transport.sendto(bytes([quic.LONG_HEADER]) + bytes(4) + ids, addr)

    async def scenario() -> ModeRun:
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_datagram_endpoint(Negotiator, local_addr=("127.0.0.1", 0))
        port = transport.get_extra_info("sockname")[1]
        target = Target(
            host="127.0.0.1", ssh_port=1, https_port=1, username="u", password="p", h3_port=port
        )
        plan = RunPlan(
            COMMANDS, StoppingRule(fixed_iterations=2), warmup=1, iteration_timeout_s=5.0
        )
        try:
            return await run_mode(OVER_QUIC, target, plan, 30.0, lambda ok: None)
        finally:
            transport.close()

    assert wire_protocol(OVER_QUIC).value == "udp"
    assert wire_protocol(REUSE).value == "tcp"
    result = asyncio.run(scenario()).result
    assert not result.published
    assert result.rtt_probe is not None
    assert result.rtt_probe.method == QUIC_VERSION_NEGOTIATION
    assert len(answered) == runner_module.RTT_PROBE_ATTEMPTS * result.rtt_probe.samples
    assert result.error_messages[0].startswith("rtt gate: verified RTT")


def test_wire_counts_without_a_capture_are_null_with_the_reason() -> None:
    counts = wire_counts(None, "AF_PACKET socket not permitted: no CAP_NET_RAW", [])
    assert counts.available is False
    assert counts.reason is not None
    assert "CAP_NET_RAW" in counts.reason
    assert counts.per_iteration == []
    assert counts.p50 is None


def test_a_mode_is_assembled_from_its_valid_samples_only() -> None:
    """Failed and excluded iterations are counted, never in the figures."""
    started = datetime(2026, 11, 22, 11, 0, tzinfo=UTC)
    records = [
        IterationRecord(1, started, 30.0, None),
        IterationRecord(2, started, 90.0, "show clock: % Invalid input"),
        IterationRecord(3, started, 10.0, None, excluded="profile not verified: restarted"),
        IterationRecord(4, started, 34.0, None),
    ]
    gate = RttVerification(30.2, None, check_rtt(30.0, 30.2), None)
    failures = ["iteration 2: show clock: % Invalid input"]
    measurement = Measurement(
        records,
        failures,
        None,
        wire_counts(None, "no capture", []),
        unavailable("no capture"),
        "fixed",
    )
    plan = RunPlan(COMMANDS, StoppingRule(fixed_iterations=4), warmup=1, iteration_timeout_s=5.0)
    result = assemble(REUSE, plan, 30.0, gate, measurement, started, started)
    assert result.handshakes == unavailable("no capture")
    assert result.samples_ms == [30.0, 34.0]
    assert (result.stats.n, result.stats.errors, result.stats.excluded) == (2, 1, 1)
    assert result.stats.p50_ms == 32.0
    assert result.error_messages == failures
    assert not result.ok
    assert result.published
    assert (result.min_round_trips, result.expected_round_trips) == (4, 4)
    assert result.iterations == 4  # every measured iteration run, failed and excluded too
    assert result.precision is not None
    assert (result.precision.rule, result.precision.stop_reason) == ("fixed", "fixed")
    assert result.precision.achieved_half_width_pct is None  # 2 samples: no interval
    assert not result.precision.precise


class _SelfTimed(ScriptedSession):
    """A session whose client timed the iteration itself (as the Go program does)."""

    def take_span(self) -> ReportedSpan | None:
        return ReportedSpan(started_ns=5_000, ended_ns=1_305_000, wall_ms=1.2)


def test_a_self_timed_clients_span_is_cut_at_its_wall_time() -> None:
    """Its clocks read in another order (the packets' clock 0.1 ms outside the monotonic
    one): the span the packets are cut at ends at its start plus the wall time."""
    timing, error = asyncio.run(run_iteration(_SelfTimed(["a", "b"]), COMMANDS, 5.0))
    assert error is None
    assert (timing.wall_ns, timing.started_ns, timing.ended_ns) == (1_200_000, 5_000, 1_305_000)
    assert timing.span().cut_end_ns() == 1_205_000


def test_a_quic_clients_recovery_counts_replace_the_captures_nulls() -> None:
    """The capture counts QUIC's datagrams but not their fate; the client's counts fill the
    loss counters: missing server packets not filled late are the server's losses."""
    captured = WireIteration(
        round_trips=2, connects=1, packets_out=6, packets_in=7, segments_out=6,
        segments_in=7, bytes_out=2000, bytes_in=5000, ip_bytes_out=2168, ip_bytes_in=5196,
    )  # fmt: skip
    assert captured.recovered is None
    counted = with_client_recovery(captured, ClientRecovery(5, 6, 1, 1, 2, 0, 3, 1))
    assert counted.packets_out == 6
    assert counted.bytes_in == 5000
    assert (counted.data_segments_out, counted.data_segments_in) == (5, 6)
    assert (counted.retransmits_out, counted.retransmits_in, counted.reordered_in) == (1, 2, 1)
    assert (counted.timeouts, counted.syn_retries, counted.spurious) == (2, 1, 0)
    assert counted.recovered is True
    # A probe timeout alone (the loss it repairs declared after the iteration) is recovery.
    probe_only = with_client_recovery(captured, ClientRecovery(5, 6, 0, 0, 1, 0, 0, 0))
    assert probe_only.recovered is True
    clean = with_client_recovery(captured, ClientRecovery(5, 6, 0, 0, 0, 0, 1, 1))
    assert clean.recovered is False
