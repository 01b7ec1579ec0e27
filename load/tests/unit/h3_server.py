"""An in-process HTTP/3 server for the client's tests: aioquic's server side, sans-I/O like
the client, on one UDP socket of 127.0.0.1 served by a greenlet, with a certificate made
for the test. It issues session tickets (and resumes them), answers each GET with
``respond(path, headers)``, and can hold every answer until ``hold_for`` requests are
waiting at once."""

import datetime
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import gevent
from aioquic.buffer import Buffer
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.connection import QuicConnection
from aioquic.quic.events import ConnectionTerminated, HandshakeCompleted
from aioquic.quic.packet import pull_quic_header
from aioquic.tls import SessionTicket
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

Address = tuple[str, int]
Responder = Callable[[str, dict[str, str]], tuple[int, bytes]]


def self_signed() -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
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
        .sign(key, hashes.SHA256())
    )
    return certificate, key


@dataclass
class _Peer:
    quic: QuicConnection
    h3: H3Connection


@dataclass
class Http3TestServer:
    respond: Responder
    hold_for: int = 1
    requests: list[tuple[Address, str, dict[str, str]]] = field(default_factory=list)
    """Every request received: the client's address, the path, the headers."""
    handshakes: list[HandshakeCompleted] = field(default_factory=list)

    def __post_init__(self) -> None:
        certificate, key = self_signed()
        self._configuration = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN)
        self._configuration.certificate = certificate
        self._configuration.private_key = key
        self._tickets: dict[bytes, SessionTicket] = {}
        self._peers: dict[Address, _Peer] = {}
        self._waiting: list[tuple[_Peer, int, str, dict[str, str]]] = []
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._socket.bind(("127.0.0.1", 0))
        self.port: int = self._socket.getsockname()[1]
        self._greenlet = gevent.spawn(self._serve)

    def close(self) -> None:
        self._greenlet.kill()
        self._socket.close()

    def _serve(self) -> None:
        while True:
            now = time.monotonic()
            timers = [t for p in self._peers.values() if (t := p.quic.get_timer()) is not None]
            self._socket.settimeout(max(min(timers) - now, 0.001) if timers else None)
            try:
                datagram, address = self._socket.recvfrom(65535)
                self._peer(datagram, address).quic.receive_datagram(
                    datagram, address, now=time.monotonic()
                )
            except TimeoutError:
                pass
            now = time.monotonic()
            for address, peer in list(self._peers.items()):
                timer = peer.quic.get_timer()
                if timer is not None and timer <= now:
                    peer.quic.handle_timer(now=now)
                if not self._handle_events(peer):
                    del self._peers[address]
            if len(self._waiting) >= self.hold_for:
                for peer, stream_id, path, headers in self._waiting:
                    status, body = self.respond(path, headers)
                    peer.h3.send_headers(stream_id, [(b":status", str(status).encode())])
                    peer.h3.send_data(stream_id, body, end_stream=True)
                self._waiting.clear()
            for address, peer in self._peers.items():
                for datagram, _ in peer.quic.datagrams_to_send(now=time.monotonic()):
                    self._socket.sendto(datagram, address)

    def _peer(self, datagram: bytes, address: Address) -> _Peer:
        if address not in self._peers:
            header = pull_quic_header(Buffer(data=datagram), host_cid_length=8)
            quic = QuicConnection(
                configuration=self._configuration,
                original_destination_connection_id=header.destination_cid,
                session_ticket_fetcher=self._tickets.get,
                session_ticket_handler=lambda ticket: self._tickets.update({ticket.ticket: ticket}),
            )
            self._peers[address] = _Peer(quic, H3Connection(quic))
        return self._peers[address]

    def _handle_events(self, peer: _Peer) -> bool:
        """The peer's events handled; False once its connection has ended."""
        address = peer.quic.get_peer_address()
        while (event := peer.quic.next_event()) is not None:
            if isinstance(event, ConnectionTerminated):
                return False
            if isinstance(event, HandshakeCompleted):
                self.handshakes.append(event)
            for h3_event in peer.h3.handle_event(event):
                if isinstance(h3_event, HeadersReceived):
                    headers = {k.decode(): v.decode() for k, v in h3_event.headers}
                    path = headers[":path"]
                    assert address is not None
                    self.requests.append(((address[0], address[1]), path, headers))
                    self._waiting.append((peer, h3_event.stream_id, path, headers))
        return True
