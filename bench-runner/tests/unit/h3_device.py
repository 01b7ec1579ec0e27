"""An HTTP/3 server on 127.0.0.1 standing in for the device's (aioquic, in the test's event
loop): ``GET /admin/exec/<command>[/<command>...]`` with HTTP Basic auth, a self-signed
certificate, session tickets and 0-RTT. It records every connection's handshake and every
request, and whether the request arrived as early data (before the client's Finished)."""

import base64
import datetime
import ipaddress
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.asyncio.server import serve
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import HandshakeCompleted, QuicEvent
from aioquic.tls import SessionTicket
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

USERNAME, PASSWORD = "labops", 's3cret "quoted" \\ back'
"""A password with the characters a config file must escape."""
EXEC_PREFIX = "/admin/exec/"


def output_of(command: str) -> str:
    """What the stand-in answers: a CLI error for ``show nonsense``, else an echo."""
    if command == "show nonsense":
        return "% Invalid input detected at '^' marker.\n"
    return f"lab-r1 answers {command}\n"


@dataclass(frozen=True)
class Request:
    path: str
    early: bool
    """Arrived before the handshake completed: 0-RTT early data."""
    connection: int


@dataclass(frozen=True)
class Handshake:
    connection: int
    resumed: bool
    early_data_accepted: bool


@dataclass
class H3Device:
    """What the stand-in saw, and how it behaves."""

    port: int = 0
    requests: list[Request] = field(default_factory=list)
    handshakes: list[Handshake] = field(default_factory=list)
    connections: int = 0
    resume: bool = True
    """Accept the tickets it issued (False: every handshake is a full one)."""
    too_early: bool = False
    """Answer 425 Too Early to a request that arrived as early data."""
    hold_until: int = 1
    """Answer nothing until this many requests wait on the connection (concurrency)."""
    tickets: dict[bytes, SessionTicket] = field(default_factory=dict)
    protocols: list[QuicConnectionProtocol] = field(default_factory=list)

    def paths(self, *, early: bool | None = None) -> list[str]:
        return [r.path for r in self.requests if early is None or r.early is early]

    def close_connections(self) -> None:
        for protocol in self.protocols:
            protocol.close(reason_phrase="device restarted")


def _certificate(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "device")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "h3-cert.pem", directory / "h3-key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def _device_protocol(state: H3Device) -> type[QuicConnectionProtocol]:
    authorization = b"Basic " + base64.b64encode(f"{USERNAME}:{PASSWORD}".encode())

    class DeviceProtocol(QuicConnectionProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._http = H3Connection(self._quic)
            self._handshake_done = False
            self._held: list[tuple[int, dict[bytes, bytes], bool]] = []
            state.connections += 1
            self._number = state.connections
            state.protocols.append(self)

        def quic_event_received(self, event: QuicEvent) -> None:
            if isinstance(event, HandshakeCompleted):
                self._handshake_done = True
                state.handshakes.append(
                    Handshake(self._number, event.session_resumed, event.early_data_accepted)
                )
            for http_event in self._http.handle_event(event):
                if isinstance(http_event, HeadersReceived):
                    self._received(http_event.stream_id, dict(http_event.headers))

        def _received(self, stream_id: int, headers: dict[bytes, bytes]) -> None:
            path = headers.get(b":path", b"").decode()
            early = not self._handshake_done
            state.requests.append(Request(path, early, self._number))
            self._held.append((stream_id, headers, early))
            if len(self._held) < state.hold_until:
                return
            for held_stream, held_headers, held_early in self._held:
                status, body = self._answer(held_headers, early=held_early)
                self._http.send_headers(
                    held_stream,
                    [(b":status", str(status).encode()), (b"content-type", b"text/plain")],
                )
                self._http.send_data(held_stream, body.encode(), end_stream=True)
            self._held.clear()
            self.transmit()

        def _answer(self, headers: dict[bytes, bytes], *, early: bool) -> tuple[int, str]:
            path = headers.get(b":path", b"").decode()
            if early and state.too_early:
                return 425, "Too Early\n"
            if headers.get(b"authorization") != authorization:
                return 401, "Unauthorized\n"
            if not path.startswith(EXEC_PREFIX):
                return 404, "Not Found\n"
            commands = [unquote_plus(part) for part in path[len(EXEC_PREFIX) :].split("/")]
            return 200, "".join(output_of(command) for command in commands)

    return DeviceProtocol


@asynccontextmanager
async def serving(state: H3Device, directory: Path) -> AsyncIterator[H3Device]:
    """The stand-in on a free UDP port of 127.0.0.1 while the block runs."""
    configuration = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN)
    configuration.load_cert_chain(*_certificate(directory))

    def fetch(label: bytes) -> SessionTicket | None:
        return state.tickets.get(label) if state.resume else None

    def keep(ticket: SessionTicket) -> None:
        state.tickets[ticket.ticket] = ticket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        state.port = probe.getsockname()[1]
    server = await serve(
        "127.0.0.1",
        state.port,
        configuration=configuration,
        create_protocol=_device_protocol(state),
        session_ticket_fetcher=fetch,
        session_ticket_handler=keep,
    )
    try:
        yield state
    finally:
        server.close()
