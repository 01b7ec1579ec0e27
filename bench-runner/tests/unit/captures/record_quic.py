"""Records real QUIC exchanges for the QUIC unit tests (captures/quic-aioquic.json): an aioquic
HTTP/3 client and server on loopback, with a relay between them that delays each datagram by
half the round trip each way (netem's place: the runner's view is of the client's datagrams
as they leave and the server's as they arrive), every datagram between the client and the
relay kept whole with the kernel's receive stamp, and what the client reports it negotiated.

aioquic is no dependency of the runner for this: run in a throwaway container of the runner's
test image, which has the ``cryptography`` the certificate needs, e.g.

    docker run --rm -v "$PWD/bench-runner/tests/unit/captures:/out" --entrypoint sh \\
      transport-lab/bench-runner-test:dev -c \\
      'pip install -q aioquic==1.7.2 && python3 /out/record_quic.py /out/quic-aioquic.json'

Exchanges, each as its client ran it with the time it started and ended: a connection per
request, three requests on a kept connection (its handshake before the start), a resumed
connection whose request travels as 0-RTT early data, a server that sends a Retry first
(each at ``regional``'s 30 ms), the kept connection and the fresh one again without delay
(``local``), and one QUIC Version Negotiation exchange (the RTT probe's). Each datagram is
``[time_ns, outgoing, runner_port, payload_hex, payload_length]``.
"""

import asyncio
import json
import os
import socket
import ssl
import struct
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import aioquic
from aioquic.asyncio.client import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.asyncio.server import serve
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, H3Event, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import QuicEvent
from aioquic.tls import SessionTicket
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from bench_runner.protocols import quic

HOST = "127.0.0.1"
AUTHORITY = b"lab-r1"
PATH = b"/admin/exec/show+version"
ANSWER = b"Cisco IOS XE Software, Version 17.9.4a\n" * 75
"""About 3 KB, as the device's ``show version`` over HTTPS: three datagrams."""
REGIONAL_ONE_WAY_S = 0.015
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SO_TIMESTAMPNS = 35
IPPROTO_UDP = 17
SHORT_HEADER_KEPT = 46
"""``bpf.SNAPLEN`` keeps at least this much of a UDP payload."""


def certificate() -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    """A self-signed P-256 certificate, as the device's entrypoint makes one."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, AUTHORITY.decode())])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=30))
        .sign(key, hashes.SHA256())
    )
    return cert, key


class Server(QuicConnectionProtocol):
    """Answers every GET with ``ANSWER``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._http = H3Connection(self._quic)

    def quic_event_received(self, event: QuicEvent) -> None:
        for http_event in self._http.handle_event(event):
            if isinstance(http_event, HeadersReceived) and http_event.stream_ended:
                headers = [(b":status", b"200"), (b"content-type", b"text/plain")]
                self._http.send_headers(http_event.stream_id, headers)
                self._http.send_data(http_event.stream_id, ANSWER, end_stream=True)
                self.transmit()


class Client(QuicConnectionProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._http = H3Connection(self._quic)
        self._answers: dict[int, tuple[asyncio.Future[bytes], bytearray]] = {}

    async def get(self) -> bytes:
        stream_id = self._quic.get_next_available_stream_id()
        headers = [
            (b":method", b"GET"),
            (b":scheme", b"https"),
            (b":authority", AUTHORITY),
            (b":path", PATH),
        ]
        self._http.send_headers(stream_id, headers, end_stream=True)
        answer: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._answers[stream_id] = (answer, bytearray())
        self.transmit()
        return await answer

    def quic_event_received(self, event: QuicEvent) -> None:
        for http_event in self._http.handle_event(event):
            self._answered(http_event)

    def _answered(self, event: H3Event) -> None:
        if not isinstance(event, HeadersReceived | DataReceived):
            return
        answer, body = self._answers[event.stream_id]
        if isinstance(event, DataReceived):
            body += event.data
        if event.stream_ended:
            answer.set_result(bytes(body))

    def reported(self) -> dict[str, Any]:
        tls = self._quic.tls
        return {
            "cipher": tls.key_schedule.cipher_suite.name if tls.key_schedule else None,
            "alpn": tls.alpn_negotiated,
            "resumed": tls.session_resumed,
            "early_data_accepted": tls.early_data_accepted,
        }


class Relay:
    """Forwards each client's datagrams to the server from a socket of its own, and the
    answers back, each after ``one_way_s``."""

    def __init__(self, server: tuple[str, int], one_way_s: float) -> None:
        self._server = server
        self._one_way_s = one_way_s
        self._loop = asyncio.get_running_loop()
        self._down = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._down.bind((HOST, 0))
        self._down.setblocking(False)
        self.port: int = self._down.getsockname()[1]
        self._up: dict[tuple[str, int], socket.socket] = {}
        self._loop.add_reader(self._down, self._from_client)

    def _later(self, send: Any, *args: Any) -> None:
        self._loop.call_later(self._one_way_s, send, *args)

    def _from_client(self) -> None:
        data, client = self._down.recvfrom(65535)
        up = self._up.get(client)
        if up is None:
            up = self._up[client] = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            up.connect(self._server)
            up.setblocking(False)
            self._loop.add_reader(up, self._from_server, up, client)
        self._later(up.send, data)

    def _from_server(self, up: socket.socket, client: tuple[str, int]) -> None:
        self._later(self._down.sendto, up.recv(65535), client)

    def close(self) -> None:
        self._loop.remove_reader(self._down)
        for up in self._up.values():
            self._loop.remove_reader(up)
            up.close()
        self._down.close()


class Recorder:
    """Every UDP datagram to or from ``port`` on loopback, with the kernel's stamp: those
    that start with a long header whole, the 1-RTT ones (encrypted, nothing to read but
    their first bytes) as much as the runner's counting capture keeps of them at least."""

    def __init__(self, port: int) -> None:
        self._port = port
        self._sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self._sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self._sock.bind(("lo", ETH_P_ALL))
        self._sock.setblocking(False)
        self.datagrams: list[list[Any]] = []

    def drain(self) -> None:
        while True:
            try:
                frame, ancillary, _, address = self._sock.recvmsg(65535, 64)
            except BlockingIOError:
                return
            if address[2] == PACKET_OUTGOING:
                continue  # loopback shows each packet leaving and arriving
            ip = frame[14:]
            if ip[0] >> 4 != 4 or ip[9] != IPPROTO_UDP:
                continue
            udp = ip[(ip[0] & 0x0F) * 4 :]
            source, destination = struct.unpack("!HH", udp[:4])
            if self._port not in (source, destination):
                continue
            seconds, nanoseconds = struct.unpack("qq", ancillary[0][2][:16])
            outgoing = destination == self._port
            payload = udp[8:]
            kept = payload if quic.is_long_header(payload) else payload[:SHORT_HEADER_KEPT]
            self.datagrams.append(
                [
                    seconds * 1_000_000_000 + nanoseconds,
                    outgoing,
                    source if outgoing else destination,
                    kept.hex(),
                    len(payload),
                ]
            )

    def close(self) -> None:
        self._sock.close()


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def client_configuration(ticket: SessionTicket | None = None) -> QuicConfiguration:
    configuration = QuicConfiguration(
        is_client=True, alpn_protocols=H3_ALPN, verify_mode=ssl.CERT_NONE
    )
    configuration.server_name = AUTHORITY.decode()
    configuration.session_ticket = ticket
    return configuration


async def exchange(
    what: str, profile: str, one_way_s: float, retry: bool, run: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One exchange through a relay of ``one_way_s``, and its first RTT probe."""
    cert, key = certificate()
    configuration = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN)
    configuration.certificate = cert
    configuration.private_key = key
    tickets: dict[bytes, SessionTicket] = {}
    server_port = free_udp_port()
    server = await serve(
        HOST,
        server_port,
        configuration=configuration,
        create_protocol=Server,
        session_ticket_fetcher=tickets.pop,
        session_ticket_handler=lambda ticket: tickets.__setitem__(ticket.ticket, ticket),
        retry=retry,
    )
    relay = Relay((HOST, server_port), one_way_s)
    recorder = Recorder(relay.port)
    try:
        # The RTT as the runner verifies it: the fastest of ten Version Negotiation
        # exchanges (recorded apart).
        probes = [await version_negotiation(relay.port) for _ in range(10)]
        entry: dict[str, Any] = {
            "what": what,
            "profile": profile,
            "rtt_ns": min(elapsed for elapsed, _ in probes),
        }
        recorder.drain()
        recorder.datagrams.clear()
        entry.update(await run(relay.port))
        await asyncio.sleep(4 * one_way_s + 0.05)  # the close and what answers it
        recorder.drain()
        entry["datagrams"] = recorder.datagrams
        return entry, probes[0][1]
    finally:
        recorder.close()
        relay.close()
        server.close()


async def version_negotiation(port: int) -> tuple[int, dict[str, Any]]:
    """One Version Negotiation exchange: its time (ns) and what it sent and got."""
    loop = asyncio.get_running_loop()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.setblocking(False)
        sock.connect((HOST, port))
        dcid, scid = os.urandom(8), os.urandom(8)
        probe = quic.version_negotiation_probe(dcid, scid, quic.reserved_version(0x1F2F3F4F))
        start = time.perf_counter_ns()
        await loop.sock_sendall(sock, probe)
        answer = await asyncio.wait_for(loop.sock_recv(sock, 2048), 5)
        elapsed = time.perf_counter_ns() - start
        assert quic.answers_probe(answer, dcid, scid)
        sent = {"dcid": dcid.hex(), "scid": scid.hex(), "probe_length": len(probe)}
        return elapsed, {**sent, "answer": answer.hex()}


async def fresh(port: int) -> dict[str, Any]:
    start_ns = time.time_ns()
    async with connect(
        HOST, port, configuration=client_configuration(), create_protocol=Client
    ) as client:
        assert isinstance(client, Client)
        assert await client.get() == ANSWER
        end_ns = time.time_ns()
        reported = [client.reported()]
    return {"start_ns": start_ns, "end_ns": end_ns, "requests": 1, "reported": reported}


async def kept(port: int) -> dict[str, Any]:
    async with connect(
        HOST, port, configuration=client_configuration(), create_protocol=Client
    ) as client:
        assert isinstance(client, Client)
        await client.get()  # the warm-up: the handshake lies before the start
        await asyncio.sleep(0.1)
        start_ns = time.time_ns()
        for _ in range(3):
            assert await client.get() == ANSWER
        end_ns = time.time_ns()
        reported = [client.reported()]
    return {"start_ns": start_ns, "end_ns": end_ns, "requests": 3, "reported": reported}


async def early_data(port: int) -> dict[str, Any]:
    tickets: list[SessionTicket] = []
    async with connect(
        HOST,
        port,
        configuration=client_configuration(),
        create_protocol=Client,
        session_ticket_handler=tickets.append,
    ) as client:
        assert isinstance(client, Client)
        await client.get()
        first = client.reported()
    await asyncio.sleep(0.1)
    start_ns = time.time_ns()
    async with connect(
        HOST,
        port,
        configuration=client_configuration(tickets[-1]),
        create_protocol=Client,
        wait_connected=False,
    ) as client:
        assert isinstance(client, Client)
        assert await client.get() == ANSWER
        end_ns = time.time_ns()
        reported = [first, client.reported()]
    return {"start_ns": start_ns, "end_ns": end_ns, "requests": 1, "reported": reported}


async def main() -> dict[str, Any]:
    plans = [
        ("a connection per request", "regional", REGIONAL_ONE_WAY_S, False, fresh),
        ("three requests on a kept connection", "regional", REGIONAL_ONE_WAY_S, False, kept),
        ("a resumed connection, its request as 0-RTT early data", "regional",
         REGIONAL_ONE_WAY_S, False, early_data),
        ("a connection per request, the server sending a Retry first", "regional",
         REGIONAL_ONE_WAY_S, True, fresh),
        ("a connection per request", "local", 0.0, False, fresh),
        ("three requests on a kept connection", "local", 0.0, False, kept),
    ]  # fmt: skip
    recorded = [await exchange(*plan) for plan in plans]
    return {
        "recorded_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "aioquic": aioquic.__version__,
        "python": sys.version.split()[0],
        "kernel": os.uname().release,
        "exchanges": [entry for entry, _ in recorded],
        "version_negotiation": recorded[0][1],
    }


if __name__ == "__main__":
    recorded = asyncio.run(main())
    with open(sys.argv[1], "w") as out:
        json.dump(recorded, out, indent=1)
        out.write("\n")
