"""Opening QUIC Initial packets, against the samples of RFC 9001 appendix A."""

import pytest

from bench_runner.protocols import quic, tls_hello
from bench_runner.wire.quic_initial import (
    PacketKeys,
    QuicDecryptError,
    initial_keys,
    initial_secrets,
    open_initial,
)
from quic_vectors import (
    CLIENT_CRYPTO_FRAME,
    CLIENT_DCID,
    CLIENT_HP,
    CLIENT_INITIAL,
    CLIENT_IV,
    CLIENT_KEY,
    CLIENT_PACKET_NUMBER,
    CLIENT_PAYLOAD_BYTES,
    CLIENT_SECRET,
    RETRY,
    SERVER_HP,
    SERVER_INITIAL,
    SERVER_IV,
    SERVER_KEY,
    SERVER_PACKET_NUMBER,
    SERVER_PAYLOAD,
    SERVER_SCID,
    SERVER_SECRET,
)


def test_the_keys_derive_from_the_clients_destination_id() -> None:
    assert initial_secrets(CLIENT_DCID) == (CLIENT_SECRET, SERVER_SECRET)
    assert initial_keys(CLIENT_DCID) == (
        PacketKeys(CLIENT_KEY, CLIENT_IV, CLIENT_HP),
        PacketKeys(SERVER_KEY, SERVER_IV, SERVER_HP),
    )


def test_the_clients_initial_opens_to_its_clienthello() -> None:
    packet = quic.parse_long_header(CLIENT_INITIAL)
    assert (packet.kind, packet.dcid, packet.scid, packet.token) == (
        quic.PacketType.INITIAL,
        CLIENT_DCID,
        b"",
        b"",
    )
    assert packet.end == len(CLIENT_INITIAL) == quic.MIN_INITIAL_DATAGRAM
    number, payload = open_initial(CLIENT_INITIAL, packet, initial_keys(CLIENT_DCID)[0], None)
    assert number == CLIENT_PACKET_NUMBER
    assert payload == CLIENT_CRYPTO_FRAME + bytes(CLIENT_PAYLOAD_BYTES - len(CLIENT_CRYPTO_FRAME))
    [(offset, data)] = quic.crypto_frames(payload)
    assert offset == 0
    [message] = tls_hello.messages_of(data)
    hello = tls_hello.parse_client_hello(message)
    assert hello.complete
    assert hello.versions == (0x0304,)
    assert hello.key_shares == (0x001D,)
    assert hello.alpn == ("alpn",)  # the sample offers a protocol named so
    assert b"example.com" in message.body


def test_the_servers_initial_opens_to_its_serverhello() -> None:
    packet = quic.parse_long_header(SERVER_INITIAL)
    assert (packet.dcid, packet.scid) == (b"", SERVER_SCID)
    number, payload = open_initial(SERVER_INITIAL, packet, initial_keys(CLIENT_DCID)[1], None)
    assert (number, payload) == (SERVER_PACKET_NUMBER, SERVER_PAYLOAD)
    [(offset, data)] = quic.crypto_frames(payload)  # past the ACK frame before it
    assert offset == 0
    hello = tls_hello.parse_server_hello(tls_hello.messages_of(data)[0])
    assert (hello.version, hello.cipher_suite, hello.group) == (0x0304, 0x1301, 0x001D)


def test_a_packet_opens_only_with_its_own_keys() -> None:
    packet = quic.parse_long_header(CLIENT_INITIAL)
    with pytest.raises(QuicDecryptError):
        open_initial(CLIENT_INITIAL, packet, initial_keys(CLIENT_DCID)[1], None)
    with pytest.raises(QuicDecryptError):
        open_initial(CLIENT_INITIAL, packet, initial_keys(SERVER_SCID)[0], None)
    damaged = bytearray(CLIENT_INITIAL)
    damaged[100] ^= 0xFF
    with pytest.raises(QuicDecryptError):
        open_initial(bytes(damaged), packet, initial_keys(CLIENT_DCID)[0], None)


def test_a_packet_cut_short_does_not_open() -> None:
    held = CLIENT_INITIAL[:600]
    packet = quic.parse_long_header(held)
    assert packet.end > len(held)
    with pytest.raises(QuicDecryptError):
        open_initial(held, packet, initial_keys(CLIENT_DCID)[0], None)


def test_a_retry_names_the_connection_id_the_next_keys_derive_from() -> None:
    retry = quic.parse_long_header(RETRY)
    assert (retry.kind, retry.scid, retry.token) == (quic.PacketType.RETRY, SERVER_SCID, b"token")
    assert retry.dcid == b""
