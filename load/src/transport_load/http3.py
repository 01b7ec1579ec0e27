"""A blocking HTTP/3 client for gevent: aioquic's sans-I/O QUIC and HTTP/3 state machines,
driven by the greenlet that calls them over one UDP socket per connection (cooperative once
Locust has monkey-patched the standard library). aioquic's own client needs an asyncio loop,
which a Locust process does not run.

Each call runs the same loop until what it waits for has happened: send what the connection
has to send, wait for a datagram at most until the connection's timer (retransmission, ACK
delay, idle timeout) or the call's deadline, then feed the datagram or fire the timer, and
handle the events. Certificates are not checked (the lab's own self-signed devices).
"""

import socket
import ssl
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, H3Event, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.connection import QuicConnection
from aioquic.quic.events import ConnectionTerminated, HandshakeCompleted, StreamReset
from aioquic.tls import SessionTicket

TIMEOUT_S = 20.0
"""The longest a handshake or a request may wait for its answer."""
MAX_DATAGRAM_BYTES = 65535

Headers = Sequence[tuple[str, str]]
TicketHandler = Callable[[SessionTicket], None]


class Http3Error(Exception):
    """The connection or a request failed in QUIC or HTTP/3 (timeouts are TimeoutError)."""


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes


@dataclass
class _Exchange:
    """A request's answer as it arrives on its stream."""

    status: int | None = None
    body: bytearray = field(default_factory=bytearray)
    ended: bool = False
    reset_code: int | None = None


class Http3Connection:
    """One QUIC connection to ``address`` (IPv4) and UDP ``port``, HTTP/3 on top; no I/O
    until ``handshake``. ``server_name`` is the name the requests carry (``:authority``)
    and the TLS SNI (none for an address). With ``session_ticket`` the handshake resumes
    that session; ``ticket_handler`` receives every ticket the server issues."""

    def __init__(
        self,
        address: str,
        port: int,
        *,
        server_name: str,
        timeout: float = TIMEOUT_S,
        session_ticket: SessionTicket | None = None,
        ticket_handler: TicketHandler | None = None,
    ) -> None:
        configuration = QuicConfiguration(
            is_client=True,
            alpn_protocols=H3_ALPN,
            server_name=server_name,
            verify_mode=ssl.CERT_NONE,
            session_ticket=session_ticket,
        )
        self._peer = (address, port)
        self._authority = (server_name if port == 443 else f"{server_name}:{port}").encode()
        self._timeout = timeout
        self._quic = QuicConnection(
            configuration=configuration, session_ticket_handler=ticket_handler
        )
        self._h3 = H3Connection(self._quic)
        self._exchanges: dict[int, _Exchange] = {}
        self._terminated: ConnectionTerminated | None = None
        self.handshake_completed: HandshakeCompleted | None = None
        """The handshake's outcome (ALPN, session resumed, early data accepted)."""
        # Connected: the kernel drops datagrams from anyone else, and an ICMP port
        # unreachable comes back as ConnectionRefusedError instead of a silent timeout.
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._socket.connect(self._peer)
        self._closed = False

    @property
    def terminated(self) -> bool:
        """The connection has ended (closed by either side, or idle)."""
        return self._terminated is not None or self._closed

    def handshake(self) -> HandshakeCompleted:
        self._quic.connect(self._peer, now=time.monotonic())
        self._run_until(lambda: self.handshake_completed is not None, "QUIC handshake")
        assert self.handshake_completed is not None
        return self.handshake_completed

    def get(self, path: str, headers: Headers = ()) -> Response:
        """One GET on a new request stream, its whole answer read."""
        stream_id = self._quic.get_next_available_stream_id()
        self._h3.send_headers(
            stream_id,
            [
                (b":method", b"GET"),
                (b":scheme", b"https"),
                (b":authority", self._authority),
                (b":path", path.encode()),
                *((name.lower().encode(), value.encode()) for name, value in headers),
            ],
            end_stream=True,
        )
        exchange = self._exchanges[stream_id] = _Exchange()
        try:
            self._run_until(lambda: exchange.ended, f"GET {path}")
        finally:
            del self._exchanges[stream_id]
        if exchange.reset_code is not None:
            raise Http3Error(f"GET {path}: stream reset by the server (code {exchange.reset_code})")
        if exchange.status is None:
            raise Http3Error(f"GET {path}: the stream ended without a response")
        return Response(exchange.status, bytes(exchange.body))

    def close(self) -> None:
        """CONNECTION_CLOSE sent once (the peer needs no answer to it), the socket closed."""
        if self._closed:
            return
        self._closed = True
        try:
            self._quic.close()
            self._send()
        except OSError:
            pass  # the peer is gone already: nothing left to tell it
        finally:
            self._socket.close()

    def __enter__(self) -> "Http3Connection":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _run_until(self, done: Callable[[], bool], what: str) -> None:
        if self._closed:
            raise Http3Error(f"{what}: the connection is closed")
        deadline = time.monotonic() + self._timeout
        try:
            while True:
                self._send()
                if done():
                    return
                if (ended := self._terminated) is not None:
                    raise Http3Error(
                        f"{what}: connection closed: {ended.reason_phrase or 'no reason given'}"
                        f" (error 0x{ended.error_code:x})"
                    )
                self._receive_or_fire_timer(deadline, what)
                self._handle_events()
        except ConnectionRefusedError as exc:
            raise Http3Error(f"{what}: {self._peer[0]} refused UDP {self._peer[1]}") from exc

    def _send(self) -> None:
        for datagram, _ in self._quic.datagrams_to_send(now=time.monotonic()):
            self._socket.send(datagram)

    def _receive_or_fire_timer(self, deadline: float, what: str) -> None:
        now = time.monotonic()
        if now >= deadline:
            raise TimeoutError(f"{what}: no answer in {self._timeout:g} s")
        timer = self._quic.get_timer()
        if timer is not None and timer <= now:
            self._quic.handle_timer(now=now)
            return
        self._socket.settimeout(deadline - now if timer is None else min(deadline, timer) - now)
        try:
            datagram = self._socket.recv(MAX_DATAGRAM_BYTES)
        except TimeoutError:
            return  # the timer or the deadline is due: the next turn handles it
        self._quic.receive_datagram(datagram, self._peer, now=time.monotonic())

    def _handle_events(self) -> None:
        while (event := self._quic.next_event()) is not None:
            if isinstance(event, HandshakeCompleted):
                self.handshake_completed = event
            elif isinstance(event, ConnectionTerminated):
                self._terminated = event
            elif isinstance(event, StreamReset) and event.stream_id in self._exchanges:
                exchange = self._exchanges[event.stream_id]
                exchange.reset_code, exchange.ended = event.error_code, True
            for h3_event in self._h3.handle_event(event):
                self._answer(h3_event)

    def _answer(self, event: H3Event) -> None:
        if not isinstance(event, HeadersReceived | DataReceived):
            return
        exchange = self._exchanges.get(event.stream_id)
        if exchange is None:
            return
        if isinstance(event, HeadersReceived):
            if exchange.status is None:  # later headers are trailers
                status = dict(event.headers).get(b":status", b"")
                exchange.status = int(status) if status.isdigit() else None
        else:
            exchange.body += event.data
        if event.stream_ended:
            exchange.ended = True


def connect(
    address: str,
    port: int,
    *,
    server_name: str,
    timeout: float = TIMEOUT_S,
    session_ticket: SessionTicket | None = None,
    ticket_handler: TicketHandler | None = None,
) -> Http3Connection:
    """A connection with its handshake done (its socket closed if the handshake fails)."""
    connection = Http3Connection(
        address,
        port,
        server_name=server_name,
        timeout=timeout,
        session_ticket=session_ticket,
        ticket_handler=ticket_handler,
    )
    try:
        connection.handshake()
    except BaseException:
        connection.close()
        raise
    return connection
