"""Round trips counted on the client's socket.

A round trip is a request followed by its answer: every change of direction from sending to
receiving, plus one per TCP connect (SYN, SYN-ACK), which the socket's data does not show.
Data the server sends on its own (an SSH version line right after the connect) is not a
change from sending to receiving and costs nothing extra. Nor is data that arrives sooner
than a round trip after the earliest send still waiting for its answer: the server sent it
before that send could reach it (OpenSSH 10's sshd sends its KEXINIT once sshd-auth has
started and its hostkeys message once authentication is done, each on its own a few ms after
what came before, so it may arrive just after the client's next message left); the wait goes
on until its answer comes. "A round trip" is the verified RTT less a slack
(:func:`earliest_answer_ns`); at the lab's own sub-millisecond RTT nothing is that early and
the count is the direction changes alone. The count is what the client waited for at the
protocol level; TCP-level waiting (a large answer arriving over several RTTs, a delayed ACK)
is not in it, which is why it can be lower than the RTTs added to the wall time.

The asyncssh modes record their socket through :class:`TracingConnector`, asyncssh's
``tunnel`` hook: the real TCP connection is opened by the event loop as usual, and only
the protocol and transport are wrapped to log each write and each chunk received, stamped
with the event loop's clock (later than the kernel's stamp for a chunk received and earlier
for a write, so an early message may look like an answer on a stalled loop, never the
reverse).
"""

import asyncio
import time
from collections.abc import Callable, Iterable
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel


class Event(StrEnum):
    CONNECT = "connect"
    SEND = "send"
    RECV = "recv"


class RoundTripCounter:
    """The round-trip definition, fed one event at a time with its stamp (ns, any one
    clock): the packet capture (``bench_runner.wire``) counts a whole bulk transfer without
    keeping an event list. ``answer_after_ns``: :func:`earliest_answer_ns` of the RTT."""

    __slots__ = ("_answer_after_ns", "_waiting_since_ns", "count")

    def __init__(self, answer_after_ns: int = 0) -> None:
        self.count = 0
        self._answer_after_ns = answer_after_ns
        self._waiting_since_ns: int | None = None
        """The stamp of the earliest send still waiting for its answer."""

    def feed(self, event: Event, at_ns: int = 0) -> None:
        if event is Event.CONNECT:
            self.count += 1
            self._waiting_since_ns = None
        elif event is Event.SEND:
            if self._waiting_since_ns is None:
                self._waiting_since_ns = at_ns
        elif (
            self._waiting_since_ns is not None
            and at_ns - self._waiting_since_ns >= self._answer_after_ns
        ):
            self.count += 1
            self._waiting_since_ns = None


ANSWER_SLACK_FRACTION = 0.10
ANSWER_SLACK_MIN_NS = 2_000_000
"""How much sooner than the verified RTT an answer may still arrive: the engine's jitter and
scheduling, and a verified RTT timed from user space (up to a millisecond long on a loaded
host). Below this RTT, any packet may be an answer."""


def earliest_answer_ns(rtt_ns: int) -> int:
    """How long after a send the first packet that can be its answer arrives (0: any)."""
    return max(rtt_ns - max(ANSWER_SLACK_MIN_NS, int(rtt_ns * ANSWER_SLACK_FRACTION)), 0)


def count_round_trips(
    events: Iterable[Event] | Iterable[tuple[Event, int]], answer_after_ns: int = 0
) -> int:
    """Connects plus answered sends in a socket trace (events alone, or with their stamps)."""
    counter = RoundTripCounter(answer_after_ns)
    for item in events:
        if isinstance(item, tuple):
            counter.feed(*item)
        else:
            counter.feed(item)
    return counter.count


class SocketTrace:
    """Events of every connection a session opens, with the event loop's stamps, collected
    per iteration."""

    def __init__(self) -> None:
        self.events: list[tuple[Event, int]] = []

    def record(self, event: Event) -> None:
        self.events.append((event, time.monotonic_ns()))

    def take_round_trips(self, answer_after_ns: int = 0) -> int:
        """Round trips since the last call (``answer_after_ns``: see
        :func:`earliest_answer_ns`); starts a new count."""
        count = count_round_trips(self.events, answer_after_ns)
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
