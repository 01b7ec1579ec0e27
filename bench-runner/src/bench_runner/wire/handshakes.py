"""What each captured connection negotiated, decoded from its hello packets.

The packets of one connection (``hello_capture``) hold, for SSH, both identification
lines and both KEXINITs; for TLS, the ClientHello and the ServerHello (two of each after
a HelloRetryRequest). ``decode`` turns them into one ``Negotiation`` per connection, named
with the InfluxDB tags of ``influx_schema.HANDSHAKE_TAGS``. A connection whose handshake
the capture did not hold whole (a hello cut short, one side missing, bytes that do not
parse) is kept with the reason and no values: it is counted, never guessed.
"""

from dataclasses import dataclass, field

from bench_runner.influx_schema import Tag
from bench_runner.protocols import ssh_kex, tls_hello
from bench_runner.wire.hello_capture import ConnectionKey, HelloPacket

SSH, TLS, QUIC = "ssh", "tls", "quic"
"""The protocols a negotiation is read from: QUIC's is TLS 1.3 carried in QUIC's Initial
packets (``quic_handshakes``)."""
CLIENT_ID = "ssh_client_id"
"""The client's identification line (``SSH-2.0-paramiko_5.1.0``): recorded, not a tag."""
SERVER_ID = "ssh_server_id"
SSH_TAGS = {
    "kex": Tag.SSH_KEX,
    "host_key": Tag.SSH_HOST_KEY,
    "cipher_cs": Tag.SSH_CIPHER_CS,
    "cipher_sc": Tag.SSH_CIPHER_SC,
    "mac_cs": Tag.SSH_MAC_CS,
    "mac_sc": Tag.SSH_MAC_SC,
}
NONE_IN_COMMON = "none in common"
"""The two name-lists share no algorithm: the connection failed there."""
NO_KEY_SHARE = "none (resumed without key exchange)"
"""A resumption without (EC)DHE: TLS 1.3 ``psk_ke``, or a resumed TLS 1.2 session."""
TLS12_GROUP_UNSEEN = "not captured (TLS 1.2: in ServerKeyExchange)"
TRUE, FALSE = "true", "false"


@dataclass(frozen=True)
class Negotiation:
    """One connection's handshake: its protocol and what it negotiated (tag -> value),
    or, when it could not be read whole, why not (``problem``) and no values."""

    connection: ConnectionKey
    protocol: str
    values: dict[str, str] = field(default_factory=dict)
    problem: str | None = None
    alpn_offered: tuple[str, ...] | None = None
    """TLS: the protocols the ClientHello offered for ALPN (empty: none); None when not
    known (SSH, or a ClientHello cut before its extensions ended)."""


def decode(packets: list[HelloPacket]) -> list[Negotiation]:
    """One negotiation per connection, in the order the connections started; a
    retransmitted packet (same direction and sequence number) counts once."""
    connections: dict[ConnectionKey, list[HelloPacket]] = {}
    seen: set[tuple[ConnectionKey, bool, int]] = set()
    for packet in packets:
        key = (packet.connection, packet.outgoing, packet.seq)
        if key not in seen:
            seen.add(key)
            connections.setdefault(packet.connection, []).append(packet)
    decoded = []
    for connection, held in connections.items():
        first = held[0].payload
        if first.startswith(ssh_kex.IDENTIFICATION_PREFIX) or ssh_kex.is_kexinit_packet(first):
            # sshd greets every TCP connection, the RTT probe's bare connects too (its
            # greeting may arrive once the capture is open): one the client never spoke on
            # negotiated nothing.
            if any(packet.outgoing for packet in held):
                decoded.append(_ssh(connection, held))
        elif tls_hello.is_hello_record(first):
            decoded.append(_tls(connection, held))
        # Anything else is encrypted bytes that passed the filter by chance: no handshake.
    return decoded


def _ssh(connection: ConnectionKey, packets: list[HelloPacket]) -> Negotiation:
    ids: dict[bool, str] = {}
    kexinits: dict[bool, ssh_kex.KexInit] = {}
    try:
        for packet in packets:
            if packet.outgoing in kexinits:
                continue  # that side's handshake is read: the rest is encrypted
            data = packet.payload
            if data.startswith(ssh_kex.IDENTIFICATION_PREFIX) and packet.outgoing not in ids:
                ids[packet.outgoing], data = ssh_kex.split_identification(data)
            if ssh_kex.is_kexinit_packet(data):
                kexinits[packet.outgoing] = ssh_kex.parse_kexinit(data)
    except ssh_kex.SshFormatError as exc:
        return Negotiation(connection, SSH, problem=str(exc))
    sides = {True: "client", False: "server"}
    missing = [
        f"{sides[side]} {what}"
        for side in (True, False)
        for what, found in (("identification", ids), ("KEXINIT", kexinits))
        if side not in found
    ]
    if missing:
        return Negotiation(connection, SSH, problem=f"not captured: {', '.join(missing)}")
    try:
        chosen = ssh_kex.negotiate(kexinits[True], kexinits[False])
    except KeyError as exc:
        return Negotiation(connection, SSH, problem=f"KEXINIT cut before its {exc.args[0]} list")
    values = {SSH_TAGS[name]: value or NONE_IN_COMMON for name, value in chosen.items()}
    return Negotiation(connection, SSH, {**values, CLIENT_ID: ids[True], SERVER_ID: ids[False]})


ServerHellos = list[tuple[tls_hello.ServerHello, list[tls_hello.Message]]]
"""Each ServerHello (a HelloRetryRequest too) with the messages that followed it."""


def _tls(connection: ConnectionKey, packets: list[HelloPacket]) -> Negotiation:
    client_hellos: list[tls_hello.ClientHello] = []
    server_hellos: ServerHellos = []
    try:
        for packet in packets:
            if not tls_hello.is_hello_record(packet.payload):
                continue
            messages = tls_hello.handshake_messages(packet.payload)
            if messages[0].kind == tls_hello.CLIENT_HELLO and packet.outgoing:
                client_hellos.append(tls_hello.parse_client_hello(messages[0]))
            elif messages[0].kind == tls_hello.SERVER_HELLO and not packet.outgoing:
                hello = tls_hello.parse_server_hello(messages[0])
                server_hellos.append((hello, messages[1:]))
                if not hello.hello_retry:
                    break  # the handshake is decided: what follows is encrypted
    except tls_hello.TlsFormatError as exc:
        return Negotiation(connection, TLS, problem=str(exc))
    return tls_negotiation(connection, TLS, client_hellos, server_hellos)


def tls_negotiation(
    connection: ConnectionKey,
    protocol: str,
    client_hellos: list[tls_hello.ClientHello],
    server_hellos: ServerHellos,
) -> Negotiation:
    """What a TLS handshake negotiated, from its hellos in the order sent (TLS over TCP, or
    over QUIC: ``protocol``), or which of them the capture did not hold."""
    offered = client_hellos[0].alpn if client_hellos else None
    final = [item for item in server_hellos if not item[0].hello_retry]
    if not client_hellos or not final:
        missing = [
            what
            for what, found in (("ClientHello", client_hellos), ("ServerHello", final))
            if not found
        ]
        return Negotiation(
            connection,
            protocol,
            problem=f"not captured: {', '.join(missing)}",
            alpn_offered=offered,
        )
    hello, rest = final[-1]
    if hello.tls13:
        resumed = hello.resumed_psk
        group = tls_hello.group_name(hello.group) if hello.group is not None else NO_KEY_SHARE
    else:
        resumed = bool(hello.session_id) and hello.session_id == client_hellos[0].session_id
        curves = [tls_hello.server_key_exchange_group(message) for message in rest]
        found = next((curve for curve in curves if curve is not None), None)
        group = (
            NO_KEY_SHARE
            if resumed
            else (tls_hello.group_name(found) if found is not None else TLS12_GROUP_UNSEEN)
        )
    values = {
        Tag.TLS_VERSION: tls_hello.version_name(hello.version),
        Tag.TLS_CIPHER: tls_hello.cipher_suite_name(hello.cipher_suite),
        Tag.TLS_GROUP: group,
        Tag.TLS_RESUMED: TRUE if resumed else FALSE,
        Tag.TLS_HELLO_RETRY: TRUE if any(item[0].hello_retry for item in server_hellos) else FALSE,
    }
    return Negotiation(connection, protocol, values, alpn_offered=offered)
