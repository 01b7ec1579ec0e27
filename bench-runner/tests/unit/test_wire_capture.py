"""The packet capture on a real loopback connection (needs CAP_NET_RAW: root in the
runner's image or on a Linux host; elsewhere skipped with the reason, failed under CI)."""

import asyncio
import socket
import threading
import time

import pytest

from bench_runner.roundtrips import SocketTrace, TracingConnector, count_round_trips
from bench_runner.wire import capture as capture_module
from bench_runner.wire.capture import PACE_S, Segment, WireCapture, open_capture
from bench_runner.wire.timeline import ACK, FIN, SYN, HandshakeRtts, Packet, Span
from prerequisites import missing

REQUESTS = 3
LOOPBACK_RTT_NS = 50_000


class _PingClient(asyncio.Protocol):
    """Sends 'ping' ``REQUESTS`` times, each after the previous answer."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.answers = 0
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # the tracing wrapper
        transport.write(b"ping")  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        self.answers += 1
        assert self.transport is not None
        if self.answers < REQUESTS:
            self.transport.write(b"ping")
        elif not self.done.done():
            self.done.set_result(None)


async def _exchange(port: int, trace: SocketTrace) -> None:
    transport, client = await TracingConnector(trace).create_connection(
        _PingClient, "127.0.0.1", port
    )
    assert isinstance(client, _PingClient)
    await asyncio.wait_for(client.done, 5)
    transport.close()


def _run(capture: WireCapture, port: int, pause_s: float = 0.0) -> tuple[Segment | None, int]:
    """The captured segment and the socket-trace count of one connection's exchange; with
    ``pause_s``, the capture thread drains the ring before the closing mark."""
    trace = SocketTrace()
    capture.mark()
    asyncio.run(_exchange(port, trace))
    time.sleep(pause_s)
    index = capture.mark()
    segments = capture.finish()
    return (segments[index] if segments is not None else None), count_round_trips(trace.events)


@pytest.fixture
def server_port() -> int:
    """A blocking pong server in a thread, answering one connection."""
    listener = socket.create_server(("127.0.0.1", 0))
    port: int = listener.getsockname()[1]

    def serve() -> None:
        with listener:
            connection, _ = listener.accept()
            with connection:
                for _ in range(REQUESTS):
                    if connection.recv(4) != b"ping":
                        return
                    connection.sendall(b"pong")

    threading.Thread(target=serve, daemon=True).start()
    return port


@pytest.mark.parametrize("pause_s", [0.0, 3 * PACE_S], ids=["parsed-at-finish", "parsed-by-thread"])
def test_wire_count_equals_the_socket_trace(
    server_port: int, pause_s: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    if pause_s:  # any unparsed frame is a backlog: the thread parses across the boundary
        monkeypatch.setattr(capture_module, "DRAIN_BACKLOG", 1)
    capture, reason = open_capture("127.0.0.1", (server_port,), LOOPBACK_RTT_NS)
    if capture is None:
        missing(f"no packet capture here: {reason}")
    try:
        segment, traced = _run(capture, server_port, pause_s)
        assert segment is not None, capture.error
        counted = segment.counts()
        assert counted.round_trips == traced == REQUESTS + 1
        assert counted.connects == 1
        assert (counted.bytes_out, counted.bytes_in) == (4 * REQUESTS, 4 * REQUESTS)
        assert counted.packets_out >= REQUESTS + 1  # SYN, the requests, ACKs, FIN
        assert counted.packets_in >= REQUESTS + 1
        assert counted.segments_out is None or counted.segments_out >= counted.packets_out
        idle = capture.mark()
        segments = capture.finish()
        assert segments is not None
        assert len(segments) == 3
        assert segments[idle].counts().packets == 0  # a new count starts at every mark()
        assert capture.drops == 0
    finally:
        capture.close()


def test_other_ports_are_not_counted(server_port: int) -> None:
    capture, reason = open_capture(
        "127.0.0.1", (server_port + 1 if server_port < 65535 else 1,), LOOPBACK_RTT_NS
    )
    if capture is None:
        missing(f"no packet capture here: {reason}")
    try:
        segment, _ = _run(capture, server_port)
        assert segment is not None
        assert segment.counts().packets == 0
    finally:
        capture.close()


def test_missing_capability_is_a_reason_not_a_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    class _NoRawSockets:
        AF_PACKET = getattr(socket, "AF_PACKET", 17)
        SOCK_RAW = socket.SOCK_RAW
        SOCK_STREAM = socket.SOCK_STREAM
        SOCK_DGRAM = socket.SOCK_DGRAM
        AF_INET = socket.AF_INET
        AF_INET6 = socket.AF_INET6
        getaddrinfo = staticmethod(socket.getaddrinfo)

        @staticmethod
        def socket(family: int, *args: object) -> socket.socket:
            if family == _NoRawSockets.AF_PACKET:
                raise PermissionError(1, "Operation not permitted")
            return socket.socket(family, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(capture_module, "socket", _NoRawSockets)
    capture, reason = open_capture("127.0.0.1", (22,), LOOPBACK_RTT_NS)
    assert capture is None
    assert reason is not None
    assert "CAP_NET_RAW" in reason


@pytest.mark.parametrize("pause_s", [0.0, 3 * PACE_S], ids=["parsed-at-finish", "parsed-by-thread"])
def test_the_kernel_stamps_fall_in_the_iteration_and_the_parts_fill_it(
    server_port: int, pause_s: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Packet timestamps and the runner's clock agree: every event of an exchange lies
    between the iteration's start and end, so the parts fill its span, also when the
    capture thread parsed the packets before the closing mark said the span."""
    if pause_s:
        monkeypatch.setattr(capture_module, "DRAIN_BACKLOG", 1)
    capture, reason = open_capture("127.0.0.1", (server_port,), LOOPBACK_RTT_NS)
    if capture is None:
        missing(f"no packet capture here: {reason}")
    try:
        capture.mark()
        started = time.perf_counter_ns()
        started_ns = time.time_ns()
        asyncio.run(_exchange(server_port, SocketTrace()))
        time.sleep(pause_s)
        ended_ns = time.time_ns()
        span = Span(started_ns, ended_ns, time.perf_counter_ns() - started)
        index = capture.mark(span)
        segments = capture.finish()
        assert segments is not None, capture.error
        split = segments[index].split()
        assert split is not None
        assert 0 <= split.unaccounted_ms < 0.2
        assert split.network_ms > 0
        assert split.client_ms > 0
        assert split.stalls == 0
        assert split.recovery_ms == 0
        counts = segments[index].counts()
        # Linux's segments carry timestamps (read on the capture's fast path); nothing on
        # loopback is lost, so nothing is sent again.
        assert counts.data_segments_out
        assert counts.data_segments_in
        assert (counts.retransmits_out, counts.retransmits_in, counts.timeouts) == (0, 0, 0)
        assert counts.recovered is False
    finally:
        capture.close()


def _handshake(connection: int) -> list[Packet]:
    return [
        Packet(1_000_000, True, SYN, 0, 100, 0, connection),
        Packet(1_200_000, False, SYN | ACK, 0, 500, 101, connection),
        Packet(1_250_000, True, ACK, 0, 101, 501, connection),
    ]


def test_packets_parsed_before_the_span_is_known_wait_for_it() -> None:
    """A segment's packets parsed before the mark that ends it (a bulk transfer drained by
    the thread) are split once the mark brings the span, against it: the device's FIN
    after the client returned is no part of the iteration."""
    segment = Segment(LOOPBACK_RTT_NS, HandshakeRtts())
    for packet in _handshake(40000):
        segment.add(packet)
    segment.add(Packet(9_000_000, False, FIN | ACK, 0, 501, 101, 40000))
    assert segment.split() is None
    segment.bind(Span(0, 2_000_000, 2_000_000))
    split = segment.split()
    assert split is not None
    assert split.network_ms + split.device_ms + split.client_ms + split.stall_ms == 2.0
    assert split.unaccounted_ms == 0.0


def test_traffic_between_iterations_only_teaches_the_handshakes() -> None:
    handshakes = HandshakeRtts()
    between = Segment(LOOPBACK_RTT_NS, handshakes)
    between.bind(None)
    for packet in _handshake(40000):
        between.add(packet)
    assert between.split() is None
    assert handshakes.get(40000) == 200_000
