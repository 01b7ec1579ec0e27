"""HTTP/3 connections on aioquic's asyncio API: each dialled with aioquic's ``connect()``,
GETs sent as request streams and their answers collected until the stream ends, what the
handshake negotiated (ALPN, resumption, early data), and a close that sends
CONNECTION_CLOSE at once.

aioquic's ``connect()`` leaves its context by waiting out the closing period (RFC 9000
section 10.2: three probe timeouts, during which aioquic reads nothing and sends nothing);
the client has nothing left to wait for once CONNECTION_CLOSE is sent, so that wait runs in
the background and ``Connections.aclose`` collects it when the session ends."""

import asyncio
import base64
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from aioquic.asyncio.client import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, H3Event, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, HandshakeCompleted, QuicEvent, StreamReset
from aioquic.tls import SessionTicket, SessionTicketHandler

from bench_runner.modes.base import Target
from bench_runner.phases import PhaseTimer
from bench_runner.tls import tls13_context
from bench_runner.validation import IterationError


@dataclass(frozen=True)
class Answer:
    """A response: its status, its body, and when (``time.perf_counter``) its headers and
    its end arrived."""

    status: int
    body: str
    headers_at: float
    ended_at: float


@dataclass
class _Exchange:
    """A request stream waiting for its answer."""

    future: asyncio.Future[Answer]
    status: int | None = None
    headers_at: float | None = None
    body: bytearray = field(default_factory=bytearray)


class NegotiatedAlpn:
    """What the handshake selected, in the shape AlpnLog reads (``selected_alpn_protocol``)."""

    def __init__(self, protocol: str | None) -> None:
        self._protocol = protocol

    def selected_alpn_protocol(self) -> str | None:
        return self._protocol


class H3ClientProtocol(QuicConnectionProtocol):
    """One QUIC connection speaking HTTP/3: a GET per request stream. A connection that
    ends fails every request still waiting, and every later one, with why it ended."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._http = H3Connection(self._quic)
        self._exchanges: dict[int, _Exchange] = {}
        self.handshake: HandshakeCompleted | None = None
        """The handshake's outcome, once it completed."""
        self.lost: str | None = None
        """Why the connection ended, once it did."""

    @property
    def alpn(self) -> NegotiatedAlpn | None:
        return None if self.handshake is None else NegotiatedAlpn(self.handshake.alpn_protocol)

    def send_get(self, path: str, headers: Sequence[tuple[bytes, bytes]]) -> asyncio.Future[Answer]:
        """Write a GET on a new request stream and hand its datagrams to the socket now
        (before the handshake completes, they travel as 0-RTT early data when the
        connection resumed a ticket that allows it); the future is its answer."""
        if self.lost is not None:
            raise IterationError(self.lost)
        stream_id = self._quic.get_next_available_stream_id()
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._exchanges[stream_id] = _Exchange(future)
        self._http.send_headers(stream_id, [(b":method", b"GET"), *headers], end_stream=True)
        self.transmit()
        return future

    def quic_event_received(self, event: QuicEvent) -> None:
        if isinstance(event, HandshakeCompleted):
            self.handshake = event
        elif isinstance(event, ConnectionTerminated):
            reason = event.reason_phrase or "no reason given"
            self.lost = f"QUIC connection closed (error 0x{event.error_code:x}: {reason})"
            for exchange in self._exchanges.values():
                _fail(exchange, self.lost)
            self._exchanges.clear()
        elif isinstance(event, StreamReset) and event.stream_id in self._exchanges:
            exchange = self._exchanges.pop(event.stream_id)
            _fail(exchange, f"request stream reset by the server (error 0x{event.error_code:x})")
        for http_event in self._http.handle_event(event):
            self._answer_event(http_event)

    def _answer_event(self, event: H3Event) -> None:
        if not isinstance(event, HeadersReceived | DataReceived):
            return
        exchange = self._exchanges.get(event.stream_id)
        if exchange is None:
            return
        if isinstance(event, HeadersReceived):
            if exchange.status is None:  # the response's headers, not its trailers
                exchange.status = int(dict(event.headers).get(b":status", b"0"))
                exchange.headers_at = time.perf_counter()
        else:
            exchange.body += event.data
        if not event.stream_ended:
            return
        del self._exchanges[event.stream_id]
        if exchange.status is None or exchange.headers_at is None:
            _fail(exchange, "request stream ended without response headers")
            return
        if not exchange.future.done():
            exchange.future.set_result(
                Answer(
                    exchange.status,
                    exchange.body.decode("utf-8", errors="replace"),
                    exchange.headers_at,
                    time.perf_counter(),
                )
            )


def _fail(exchange: _Exchange, reason: str) -> None:
    if not exchange.future.done():
        exchange.future.set_exception(IterationError(reason))


def request_headers(target: Target, path: str) -> list[tuple[bytes, bytes]]:
    """The GET's other pseudo-headers and HTTP Basic credentials."""
    host = f"[{target.host}]" if ":" in target.host else target.host
    credentials = base64.b64encode(f"{target.username}:{target.password}".encode())
    return [
        (b":scheme", b"https"),
        (b":authority", f"{host}:{target.h3_port}".encode()),
        (b":path", path.encode()),
        (b"authorization", b"Basic " + credentials),
    ]


async def get(
    protocol: H3ClientProtocol,
    target: Target,
    path: str,
    phases: PhaseTimer | None = None,
    *,
    since: float | None = None,
) -> Answer:
    """One GET on ``protocol``. With ``phases``: ``send_request`` from ``since`` (default:
    now) until its datagrams are handed to the socket, ``receive_headers`` until the
    response's headers, ``receive_body`` until its stream ends."""
    started = time.perf_counter() if since is None else since
    answer = protocol.send_get(path, request_headers(target, path))
    sent = time.perf_counter()
    result = await answer
    if phases is not None:
        phases.add("send_request", sent - started)
        phases.add("receive_headers", result.headers_at - sent)
        phases.add("receive_body", result.ended_at - result.headers_at)
    return result


def configuration(target: Target, ticket: SessionTicket | None) -> QuicConfiguration:
    """HTTP/3's ALPN, the lab's certificate policy (bench_runner/tls.py: the device's
    certificate is self-signed and regenerated, so it is not verified) and the ticket
    to resume, if any."""
    return QuicConfiguration(
        is_client=True,
        alpn_protocols=H3_ALPN,
        verify_mode=tls13_context().verify_mode,
        server_name=target.host,
        session_ticket=ticket,
    )


class Connections:
    """Dials the target's HTTP/3 port and closes what it dialled; as a context manager,
    waits on exit for the closing periods still running."""

    def __init__(self, target: Target) -> None:
        self._target = target
        self._exits: dict[H3ClientProtocol, AsyncExitStack] = {}
        self._closing: set[asyncio.Task[None]] = set()

    async def dial(
        self,
        *,
        ticket: SessionTicket | None = None,
        on_ticket: SessionTicketHandler | None = None,
        wait_connected: bool = True,
    ) -> H3ClientProtocol:
        """A new connection, handshake completed unless ``wait_connected`` is False (then
        nothing is sent until the first request: it travels with the ClientHello).
        ``on_ticket`` receives the session tickets the server issues on it."""
        exit_stack = AsyncExitStack()
        try:
            protocol = await exit_stack.enter_async_context(
                connect(
                    self._target.host,
                    self._target.h3_port,
                    configuration=configuration(self._target, ticket),
                    create_protocol=H3ClientProtocol,
                    session_ticket_handler=on_ticket,
                    wait_connected=wait_connected,
                )
            )
        except ConnectionError as exc:
            raise IterationError(
                f"QUIC handshake with {self._target.host}:{self._target.h3_port} failed: "
                "the connection closed before it completed"
            ) from exc
        assert isinstance(protocol, H3ClientProtocol)  # create_protocol made it
        self._exits[protocol] = exit_stack
        return protocol

    def close(self, protocol: H3ClientProtocol) -> None:
        """Send CONNECTION_CLOSE now; aioquic's closing period and the socket's close
        follow in the background."""
        exit_stack = self._exits.pop(protocol, None)
        if exit_stack is None:  # closed already
            return
        protocol.close()
        task = asyncio.create_task(exit_stack.aclose())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def aclose(self) -> None:
        """Close every connection still open and wait until every one is closed."""
        for protocol in list(self._exits):
            self.close(protocol)
        await asyncio.gather(*self._closing, return_exceptions=True)

    async def __aenter__(self) -> "Connections":
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()
