import asyncio
from typing import cast

import pytest

from bench_runner.roundtrips import (
    Event,
    SocketTrace,
    TracingConnector,
    count_round_trips,
    earliest_answer_ns,
)

C, S, R = Event.CONNECT, Event.SEND, Event.RECV


@pytest.mark.parametrize(
    ("trace", "expected"),
    [
        ([], 0),
        ([C], 1),  # TCP handshake alone
        ([C, S, R], 2),  # connect, one request and its answer
        ([C, S, R, R, R], 2),  # an answer in several chunks is one round trip
        ([C, S, S, S, R], 2),  # pipelined requests: one round trip
        ([S, R, S, R, S, R], 3),  # keep-alive: three requests one after the other
        ([C, R, S, R], 2),  # server speaks first (SSH version line): free
        # SSH exec on a new connection: version lines cross, KEXINIT, ECDH, service request,
        # auth, channel open, exec; a server message arriving while the client also sends
        # is one exchange.
        ([C, S, R, S, R, S, R, S, R, S, R, S, R, R, R], 7),
        ([C, S, R, C, S, R], 4),  # two connections in one iteration
    ],
)
def test_count_round_trips(trace: list[Event], expected: int) -> None:
    assert count_round_trips(trace) == expected


MS = 1_000_000
ANSWER_AFTER = 27 * MS  # earliest_answer_ns of a 30 ms RTT


@pytest.mark.parametrize(
    ("trace", "expected"),
    [
        ([(C, 0), (S, 1 * MS), (R, 31 * MS)], 2),  # the answer, one RTT after the request
        # OpenSSH 10: the server's KEXINIT arrives 9 ms after the client's; the client's
        # ECDH init is answered a round trip later: one wait, one round trip.
        (
            [
                (C, 0),
                (S, 64 * MS),
                (R, 124 * MS),
                (S, 126 * MS),
                (R, 135 * MS),
                (S, 140 * MS),
                (R, 183 * MS),
            ],
            3,
        ),
        # The hostkeys message 2 ms after the channel open, its confirmation a round trip
        # after it.
        ([(S, 0), (S, 1 * MS), (R, 2 * MS), (R, 31 * MS)], 1),
        ([(S, 0), (R, 2 * MS)], 0),  # nothing answered yet
        ([(S, 0), (R, 2 * MS), (C, 3 * MS), (R, 40 * MS)], 1),  # a connect ends the wait
    ],
)
def test_data_sooner_than_a_round_trip_is_no_answer(
    trace: list[tuple[Event, int]], expected: int
) -> None:
    assert count_round_trips(trace, ANSWER_AFTER) == expected
    assert count_round_trips(trace) >= expected  # answer_after_ns 0: every direction change


@pytest.mark.parametrize(
    ("rtt_ms", "earliest_ms"), [(0.1, 0.0), (1.5, 0.0), (2.5, 0.5), (30.0, 27.0), (300.0, 270.0)]
)
def test_earliest_answer(rtt_ms: float, earliest_ms: float) -> None:
    assert earliest_answer_ns(int(rtt_ms * MS)) == pytest.approx(earliest_ms * MS, abs=1)


def test_take_round_trips_starts_a_new_count() -> None:
    trace = SocketTrace()
    for event in (C, S, R):
        trace.record(event)
    assert trace.take_round_trips() == 2
    assert trace.take_round_trips() == 0


class _Client(asyncio.Protocol):
    """Sends 'ping' twice, each after the previous answer."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.answers: list[bytes] = []
        self.done = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # The tracing wrapper duck-types asyncio.Transport.
        self.transport = cast("asyncio.Transport", transport)
        self.transport.write(b"ping")

    def data_received(self, data: bytes) -> None:
        self.answers.append(data)
        if len(self.answers) < 2:
            assert self.transport is not None
            self.transport.write(b"ping")
        else:
            self.done.set_result(None)


def test_tracing_connector_records_a_real_connection() -> None:
    async def scenario() -> tuple[list[Event], list[bytes]]:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            for _ in range(2):
                await reader.readexactly(4)
                writer.write(b"pong")
                await writer.drain()
            writer.close()

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        trace = SocketTrace()
        async with server:
            transport, client = await TracingConnector(trace).create_connection(
                _Client, "127.0.0.1", port
            )
            assert isinstance(client, _Client)
            await asyncio.wait_for(client.done, 5)
            transport.close()
        return trace.events, client.answers

    events, answers = asyncio.run(scenario())
    assert answers == [b"pong", b"pong"]
    assert [event for event, _ in events] == [C, S, R, S, R]
    stamps = [stamp for _, stamp in events]
    assert stamps == sorted(stamps)  # the event loop's clock, in the order things happened
    assert count_round_trips(events) == 3
