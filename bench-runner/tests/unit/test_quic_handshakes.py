"""What QUIC connections negotiated, read from their Initial packets: the recorded aioquic
exchanges (captures/quic-aioquic.json) against what aioquic's client reported, and the
datagrams that are no connection (Version Negotiation, the RTT probe's, a server's answer to
a client never seen), or whose handshake the capture did not hold."""

import json
from collections import Counter
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from bench_runner.influx_schema import HANDSHAKE_TAGS, Tag
from bench_runner.protocols import quic
from bench_runner.wire.handshake_model import (
    COLUMNS,
    LIBRARY,
    WIRE,
    csv_fields,
    handshake_tags,
    summarize_handshakes,
)
from bench_runner.wire.handshakes import QUIC, Negotiation
from bench_runner.wire.hello_capture import ConnectionKey, HelloPacket
from bench_runner.wire.quic_handshakes import NOT_SENT, SENT, decode_quic
from bench_runner.wire.quic_initial import initial_keys
from handshake_bytes import client_hello, server_hello
from quic_vectors import CLIENT_INITIAL, SERVER_INITIAL

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "captures" / "quic-aioquic.json").read_text()
)
DEVICE = ConnectionKey(bytes([127, 0, 0, 1]), 443, 0)


def hellos(datagrams: list[list[Any]]) -> list[HelloPacket]:
    """The datagrams the hello capture keeps: those that start with a long header."""
    return [
        HelloPacket(DEVICE._replace(own_port=port), outgoing, 0, bytes.fromhex(data), length)
        for _, outgoing, port, data, length in datagrams
        if quic.is_long_header(bytes.fromhex(data))
    ]


def decoded(what: str, profile: str = "regional") -> tuple[list[Negotiation], dict[str, Any]]:
    recorded = next(
        item
        for item in RECORDED["exchanges"]
        if item["what"].startswith(what) and item["profile"] == profile
    )
    found = decode_quic(hellos(recorded["datagrams"]))
    assert [item.problem for item in found] == [None] * len(found)
    return found, recorded


def test_what_the_wire_says_is_what_aioquic_reports() -> None:
    for recorded in RECORDED["exchanges"]:
        found = decode_quic(hellos(recorded["datagrams"]))
        assert len(found) == len(recorded["reported"]), recorded["what"]
        for negotiation, reported in zip(found, recorded["reported"], strict=True):
            assert negotiation.protocol == QUIC
            assert negotiation.values[Tag.TLS_VERSION] == "TLSv1.3"
            assert negotiation.values[Tag.TLS_CIPHER] == "TLS_" + reported["cipher"]
            assert negotiation.values[Tag.TLS_RESUMED] == str(reported["resumed"]).lower()
            assert negotiation.values[Tag.TLS_HELLO_RETRY] == "false"
            assert negotiation.alpn_offered == ("h3",)
            assert reported["alpn"] == "h3"
            # aioquic sends a key share of every group it supports: the server picks one.
            assert negotiation.values[Tag.TLS_GROUP] in {"secp256r1", "x25519"}


def test_early_data_is_what_the_client_sent_in_0rtt_packets() -> None:
    (first, resumed), recorded = decoded("a resumed connection")
    assert (first.values[Tag.TLS_EARLY_DATA], resumed.values[Tag.TLS_EARLY_DATA]) == (
        NOT_SENT,
        SENT,
    )
    assert resumed.values[Tag.TLS_RESUMED] == "true"
    assert recorded["reported"][1]["early_data_accepted"]
    [fresh], _ = decoded("a connection per request")
    assert fresh.values[Tag.TLS_EARLY_DATA] == NOT_SENT


def test_a_retry_gives_the_keys_of_the_next_initials() -> None:
    [negotiation], recorded = decoded("a connection per request, the server sending a Retry")
    kinds = [
        quic.long_header_packets(packet.payload)[0].kind for packet in hellos(recorded["datagrams"])
    ]
    assert quic.PacketType.RETRY in kinds
    assert negotiation.values[Tag.TLS_RESUMED] == "false"


def test_connections_are_told_apart_by_the_clients_connection_id() -> None:
    """Two connections' datagrams on one UDP port: two negotiations."""
    (first, resumed), recorded = decoded("a resumed connection")
    one_port = [[*item[:2], 40000, *item[3:]] for item in recorded["datagrams"]]
    again = decode_quic(hellos(one_port))
    assert [item.values for item in again] == [first.values, resumed.values]
    assert again[0].connection.connection_id != again[1].connection.connection_id


def test_version_negotiation_is_no_connection() -> None:
    probe = RECORDED["version_negotiation"]
    dcid, scid = bytes.fromhex(probe["dcid"]), bytes.fromhex(probe["scid"])
    datagram = quic.version_negotiation_probe(dcid, scid, quic.reserved_version(1))
    answer = bytes.fromhex(probe["answer"])
    packets = [
        HelloPacket(DEVICE, True, 0, datagram, len(datagram)),
        HelloPacket(DEVICE, False, 0, answer, len(answer)),
    ]
    assert decode_quic(packets) == []
    # A version 1 Initial the server answers with Version Negotiation: no connection either.
    client_id = quic.parse_long_header(CLIENT_INITIAL).scid
    refusal = bytes([quic.LONG_HEADER]) + bytes(4) + bytes([len(client_id)]) + client_id
    refusal += bytes([0]) + (0x6B3343CF).to_bytes(4, "big")
    refused = [
        HelloPacket(DEVICE, True, 0, CLIENT_INITIAL, len(CLIENT_INITIAL)),
        HelloPacket(DEVICE, False, 0, refusal, len(refusal)),
    ]
    assert decode_quic(refused) == []


def test_the_rfc_sample_handshake_decodes() -> None:
    """RFC 9001's client Initial and the server's answer (whose connection IDs the sample
    leaves empty on the client's side): x25519, TLS_AES_128_GCM_SHA256."""
    packets = [
        HelloPacket(DEVICE, True, 0, CLIENT_INITIAL, len(CLIENT_INITIAL)),
        HelloPacket(DEVICE, False, 0, SERVER_INITIAL, len(SERVER_INITIAL)),
    ]
    [negotiation] = decode_quic(packets)
    assert negotiation.problem is None
    assert negotiation.values == {
        Tag.TLS_VERSION: "TLSv1.3",
        Tag.TLS_CIPHER: "TLS_AES_128_GCM_SHA256",
        Tag.TLS_GROUP: "x25519",
        Tag.TLS_RESUMED: "false",
        Tag.TLS_HELLO_RETRY: "false",
        Tag.TLS_EARLY_DATA: NOT_SENT,
    }


def test_a_handshake_not_held_whole_is_kept_with_the_reason() -> None:
    cut = CLIENT_INITIAL[:600]
    [negotiation] = decode_quic([HelloPacket(DEVICE, True, 0, cut, len(CLIENT_INITIAL))])
    assert (
        negotiation.problem
        == "not captured: ClientHello, ServerHello (1 Initial packets did not open)"
    )
    alone = decode_quic([HelloPacket(DEVICE, True, 0, CLIENT_INITIAL, len(CLIENT_INITIAL))])
    assert [item.problem for item in alone] == ["not captured: ServerHello"]
    # The server's answer alone: its client was never seen, so it is no connection.
    assert decode_quic([HelloPacket(DEVICE, False, 0, SERVER_INITIAL, len(SERVER_INITIAL))]) == []


def test_the_alpn_protocol_of_a_quic_connection_offering_one_is_that_one() -> None:
    found, _ = decoded("a resumed connection")
    from_wire = summarize_handshakes(found, None, "aioquic", 0)
    assert from_wire.parameters[Tag.TLS_ALPN].values == {"h3": 2}
    assert from_wire.parameters[Tag.TLS_ALPN].source == WIRE
    assert from_wire.parameters[Tag.TLS_EARLY_DATA].values == {NOT_SENT: 1, SENT: 1}
    assert from_wire.varied == [Tag.TLS_RESUMED, Tag.TLS_EARLY_DATA]
    from_library = summarize_handshakes(found, Counter({"h3": 2}), "aioquic", 0)
    assert from_library.parameters[Tag.TLS_ALPN].source == LIBRARY
    several = [
        Negotiation(item.connection, QUIC, item.values, alpn_offered=("h3", "h3-29"))
        for item in found
    ]
    assert summarize_handshakes(several, None, "curl", 0).parameters[Tag.TLS_ALPN].values == {
        "not exposed by curl": 2
    }


def test_early_data_is_a_tag_and_a_column() -> None:
    found, _ = decoded("a resumed connection")
    handshakes = summarize_handshakes(found, None, "aioquic", 0)
    assert Tag.TLS_EARLY_DATA in HANDSHAKE_TAGS
    assert handshake_tags(handshakes)[Tag.TLS_EARLY_DATA] == f"{NOT_SENT}|{SENT}"
    assert Tag.TLS_EARLY_DATA in COLUMNS
    assert csv_fields(handshakes)[Tag.TLS_EARLY_DATA] == f"{NOT_SENT}|{SENT}"


def sealed_initial(
    key_id: bytes, dcid: bytes, scid: bytes, frames: bytes, number: int, client: bool
) -> bytes:
    """A version 1 Initial packet carrying ``frames``, protected as RFC 9001 section 5 says
    with the keys of the client's first destination connection ID ``key_id``."""
    keys = initial_keys(key_id)[0 if client else 1]
    payload = frames.ljust(20, b"\0")  # PADDING: the header protection sample must fit
    number_bytes = number.to_bytes(2, "big")
    length = (0x4000 | len(number_bytes) + len(payload) + 16).to_bytes(2, "big")
    header = bytes([0xC1]) + quic.VERSION_1.to_bytes(4, "big")
    header += bytes([len(dcid)]) + dcid + bytes([len(scid)]) + scid + b"\0" + length
    nonce = (int.from_bytes(keys.iv, "big") ^ number).to_bytes(12, "big")
    sealed = AESGCM(keys.key).encrypt(nonce, payload, header + number_bytes)
    sample = sealed[4 - len(number_bytes) : 20 - len(number_bytes)]
    mask = Cipher(algorithms.AES(keys.hp), modes.ECB()).encryptor().update(sample)
    protected = bytes(byte ^ pad for byte, pad in zip(number_bytes, mask[1:3], strict=True))
    return bytes([header[0] ^ mask[0] & 0x0F]) + header[1:] + protected + sealed


def crypto(offset: int, data: bytes) -> bytes:
    """A CRYPTO frame, its offset and length as two-byte variable-length integers."""
    fields = (0x4000 | offset).to_bytes(2, "big") + (0x4000 | len(data)).to_bytes(2, "big")
    return bytes([quic.FRAME_CRYPTO]) + fields + data


def test_a_hello_retry_and_hellos_split_across_packets() -> None:
    """A ClientHello in two Initial packets, their CRYPTO frames out of order; a
    HelloRetryRequest, and the second ClientHello after the first in the same stream."""
    first_hello = client_hello(alpn=("h3",), groups=(0x11EC, 0x001D))[5:]
    second_hello = client_hello(alpn=("h3",), groups=(0x001D,))[5:]
    retry = server_hello(version=0x0304, cipher=0x1301, group=0x001D, retry=True)[5:]
    hello = server_hello(version=0x0304, cipher=0x1301, group=0x001D)[5:]
    key_id, client_id, server_id = b"k" * 8, b"c" * 8, b"s" * 8
    cut = 40
    datagrams = [
        (True, sealed_initial(key_id, key_id, client_id, crypto(cut, first_hello[cut:]), 1, True)),
        (True, sealed_initial(key_id, key_id, client_id, crypto(0, first_hello[:cut]), 0, True)),
        (False, sealed_initial(key_id, client_id, server_id, crypto(0, retry), 0, False)),
        (
            True,
            sealed_initial(
                key_id, server_id, client_id, crypto(len(first_hello), second_hello), 2, True
            ),
        ),
        (False, sealed_initial(key_id, client_id, server_id, crypto(len(retry), hello), 1, False)),
    ]
    packets = [HelloPacket(DEVICE, out, 0, data, len(data)) for out, data in datagrams]
    [negotiation] = decode_quic(packets)
    assert negotiation.problem is None
    assert negotiation.values[Tag.TLS_HELLO_RETRY] == "true"
    assert negotiation.values[Tag.TLS_GROUP] == "x25519"
    assert negotiation.values[Tag.TLS_CIPHER] == "TLS_AES_128_GCM_SHA256"
    assert negotiation.alpn_offered == ("h3",)
    # Without the packet holding the ClientHello's start, the stream has nothing to read.
    [missing] = decode_quic(packets[:1] + packets[2:])
    assert missing.problem == "not captured: ClientHello"
