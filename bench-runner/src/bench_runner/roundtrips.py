"""Round trips counted on the client's socket.

A round trip is a request followed by a response: every change of direction from sending
to receiving, plus one per TCP connect (SYN, SYN-ACK), which the socket's data does not
show. Data the server sends on its own (an SSH version line right after the connect) is
not a change from sending to receiving and costs nothing extra. The count is what the
client waited for at the protocol level; TCP-level waiting (a large answer arriving over
several RTTs, a delayed ACK) is not in it, which is why it can be lower than the RTTs
added to the wall time.

The asyncssh modes record their socket through :class:`TracingConnector`, asyncssh's
``tunnel`` hook: the real TCP connection is opened by the event loop as usual, and only
the protocol and transport are wrapped to log each write and each chunk received.
"""

import asyncio
from collections.abc import Callable, Iterable
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel


class Event(StrEnum):
    CONNECT = "connect"
    SEND = "send"
    RECV = "recv"


class RoundTripCounter:
    """The round-trip definition, fed one event at a time: the packet capture
    (``bench_runner.wire``) counts a whole bulk transfer without keeping an event list."""

    __slots__ = ("count", "last")

    def __init__(self) -> None:
        self.count = 0
        self.last: Event | None = None

    def feed(self, event: Event) -> None:
        if event is Event.CONNECT or (event is Event.RECV and self.last is Event.SEND):
            self.count += 1
        self.last = event


def count_round_trips(events: Iterable[Event]) -> int:
    """Connects plus send-to-receive direction changes in a socket trace."""
    counter = RoundTripCounter()
    for event in events:
        counter.feed(event)
    return counter.count


class SocketTrace:
    """Events of every connection a session opens, collected per iteration."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def record(self, event: Event) -> None:
        self.events.append(event)

    def take_round_trips(self) -> int:
        """Round trips since the last call; starts a new count."""
        count = count_round_trips(self.events)
        self.events = []
        return count


@runtime_checkable
class TracedSession(Protocol):
    """A session whose connections are traced (the asyncssh modes)."""

    trace: SocketTrace


class RoundTrips(BaseModel):
    """Round trips per successful measured iteration, counted on the client's socket."""

    method: str = "socket-trace"
    per_iteration: list[int]
    p50: float | None


class _TracingTransport:
    """Delegates to the real transport and records each write."""

    def __init__(self, transport: asyncio.Transport, trace: SocketTrace) -> None:
        self._transport = transport
        self._trace = trace

    def write(self, data: bytes) -> None:
        if data:
            self._trace.record(Event.SEND)
        self._transport.write(data)

    def writelines(self, chunks: Iterable[bytes]) -> None:
        for chunk in chunks:
            self.write(chunk)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _TracingProtocol(asyncio.Protocol):
    """Hands the wrapped transport to the real protocol and records each chunk received."""

    def __init__(self, inner: asyncio.Protocol, trace: SocketTrace) -> None:
        self.inner = inner
        self._trace = trace

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._trace.record(Event.CONNECT)
        self.inner.connection_made(_TracingTransport(transport, self._trace))  # type: ignore[arg-type]

    def data_received(self, data: bytes) -> None:
        self._trace.record(Event.RECV)
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


class TracingConnector:
    """An asyncssh ``tunnel``: a direct TCP connection whose traffic is traced."""

    def __init__(self, trace: SocketTrace) -> None:
        self._trace = trace

    async def create_connection(
        self,
        session_factory: Callable[[], asyncio.Protocol],
        remote_host: str,
        remote_port: int,
    ) -> tuple[asyncio.BaseTransport, asyncio.Protocol]:
        loop = asyncio.get_running_loop()
        transport, protocol = await loop.create_connection(
            lambda: _TracingProtocol(session_factory(), self._trace), remote_host, remote_port
        )
        return transport, protocol.inner

    def close(self) -> None:
        """Nothing to close: the connection belongs to the SSH connection."""

    async def wait_closed(self) -> None:
        """Nothing to wait for (see close)."""
