"""What each captured QUIC connection negotiated, from its long-header datagrams.

The hello capture keeps, of a mode's UDP traffic, the datagrams that start with a long header
(``bpf.quic_hello_filter``): the Initial, 0-RTT and Handshake packets, Retry and Version
Negotiation. They are grouped into connections by the client's source connection ID (the
server's long headers carry it as their destination; a client may run several connections
on one UDP socket), their Initial packets are opened with the keys the client's first
destination connection ID gives (``quic_initial``; a Retry's source connection ID gives new
ones), and each direction's CRYPTO frames are put back in order. The ClientHello and the
ServerHello they hold are read as TLS's are (``handshakes.tls_negotiation``), with the same
tags; ``tls_early_data`` says whether the client sent 0-RTT packets.

Datagrams of a version other than 1 are no connection (the RTT probe's reserved version and
the server's Version Negotiation answer, or a client trying another version first), and
neither is a client that never sent an Initial the capture held. A connection whose hellos
the capture did not hold whole is kept with the reason, as for TLS over TCP.
"""

from dataclasses import dataclass, field

from bench_runner.influx_schema import Tag
from bench_runner.protocols import quic, tls_hello
from bench_runner.wire.handshakes import QUIC, Negotiation, ServerHellos, tls_negotiation
from bench_runner.wire.hello_capture import ConnectionKey, HelloPacket
from bench_runner.wire.quic_initial import PacketKeys, QuicDecryptError, initial_keys, open_initial

SENT, NOT_SENT = "sent", "not sent"
"""``tls_early_data``: the client sent 0-RTT packets on the connection, or none."""


@dataclass
class _Connection:
    """One connection's state while its datagrams are read in capture order."""

    keys: tuple[PacketKeys, PacketKeys] | None = None
    """The client's and the server's Initial keys, once the client's first Initial came."""
    streams: dict[bool, quic.CryptoStream] = field(
        default_factory=lambda: {True: quic.CryptoStream(), False: quic.CryptoStream()}
    )
    """Each direction's Initial CRYPTO stream, keyed by ``outgoing``."""
    largest: dict[bool, int] = field(default_factory=dict)
    early_data: bool = False
    unopened: int = 0
    """Initial packets that did not open (cut by the capture, or damaged)."""

    def read(self, datagram: bytes, packet: quic.LongHeader, outgoing: bool) -> None:
        if packet.kind is quic.PacketType.ZERO_RTT and outgoing:
            self.early_data = True
        elif packet.kind is quic.PacketType.RETRY and not outgoing:
            # The client's next Initials go to the Retry's connection ID, and both sides
            # protect them with the keys it gives (RFC 9001 section 5.2).
            self.keys = initial_keys(packet.scid)
        elif packet.kind is quic.PacketType.INITIAL:
            if self.keys is None:
                if not outgoing:
                    return  # no key yet: the client's first Initial was not held
                self.keys = initial_keys(packet.dcid)
            try:
                number, payload = open_initial(
                    datagram, packet, self.keys[0 if outgoing else 1], self.largest.get(outgoing)
                )
                frames = quic.crypto_frames(payload)
            except (QuicDecryptError, quic.QuicFormatError):
                self.unopened += 1  # cut where the capture stopped keeping bytes, or damaged
                return
            self.largest[outgoing] = max(number, self.largest.get(outgoing, number))
            for offset, data in frames:
                self.streams[outgoing].add(offset, data)

    def negotiation(self, key: ConnectionKey) -> Negotiation:
        try:
            client = tls_hello.messages_of(self.streams[True].contiguous())
            server = tls_hello.messages_of(self.streams[False].contiguous())
            client_hellos = [
                tls_hello.parse_client_hello(message)
                for message in client
                if message.kind == tls_hello.CLIENT_HELLO
            ]
            server_hellos: ServerHellos = [
                (tls_hello.parse_server_hello(message), [])
                for message in server
                if message.kind == tls_hello.SERVER_HELLO
            ]
        except tls_hello.TlsFormatError as exc:
            return Negotiation(key, QUIC, problem=str(exc))
        negotiated = tls_negotiation(key, QUIC, client_hellos, server_hellos)
        if negotiated.problem is not None:
            if self.unopened:
                problem = f"{negotiated.problem} ({self.unopened} Initial packets did not open)"
                return Negotiation(key, QUIC, problem=problem, alpn_offered=negotiated.alpn_offered)
            return negotiated
        values = {**negotiated.values, Tag.TLS_EARLY_DATA: SENT if self.early_data else NOT_SENT}
        return Negotiation(key, QUIC, values, alpn_offered=negotiated.alpn_offered)


def decode_quic(packets: list[HelloPacket]) -> list[Negotiation]:
    """One negotiation per QUIC connection, in the order the connections started."""
    connections: dict[ConnectionKey, _Connection] = {}
    refused: set[ConnectionKey] = set()
    for packet in packets:
        held = quic.long_header_packets(packet.payload)
        if not held:
            continue
        # Coalesced packets share their connection IDs (RFC 9000 section 12.2).
        client_id = held[0].scid if packet.outgoing else held[0].dcid
        key = packet.connection._replace(connection_id=client_id)
        if held[0].kind is quic.PacketType.VERSION_NEGOTIATION and not packet.outgoing:
            refused.add(key)  # the server speaks none of the client's versions: no connection
            continue
        if held[0].version != quic.VERSION_1:
            continue  # a version not read here (the RTT probe's reserved one): no connection
        connection = connections.get(key)
        if connection is None:
            if not packet.outgoing:
                continue  # the server's answer to a client the capture never saw
            connection = connections[key] = _Connection()
        for item in held:
            connection.read(packet.payload, item, packet.outgoing)
    return [
        connection.negotiation(key)
        for key, connection in connections.items()
        if connection.keys is not None and key not in refused
    ]
