"""QUIC's headers, frames and Version Negotiation, read without keys."""

import json
from pathlib import Path

import pytest

from bench_runner.protocols import quic
from quic_vectors import CLIENT_INITIAL, SERVER_INITIAL

VERSION_NEGOTIATION = json.loads(
    (Path(__file__).parent / "captures" / "quic-aioquic.json").read_text()
)["version_negotiation"]
"""A probe's connection IDs and aioquic's answer to it."""


@pytest.mark.parametrize(
    ("encoded", "value"),
    [
        ("25", 37),
        ("7bbd", 15293),
        ("9d7f3e7d", 494878333),
        ("c2197c5eff14e88c", 151288809941952652),
    ],
)
def test_variable_length_integers(encoded: str, value: int) -> None:
    """RFC 9000 appendix A.1's examples."""
    data = bytes.fromhex(encoded)
    assert quic.varint(data, 0) == (value, len(data))


def test_a_variable_length_integer_cut_short() -> None:
    with pytest.raises(quic.QuicFormatError):
        quic.varint(bytes.fromhex("7b"), 0)


def test_packet_numbers_are_decoded_near_the_next_expected() -> None:
    """RFC 9000 appendix A.3's example, and a space's first packets."""
    assert quic.decode_packet_number(0xA82F30EA, 0x9B32, 2) == 0xA82F9B32
    assert quic.decode_packet_number(None, 0, 1) == 0
    assert quic.decode_packet_number(254, 0x01, 1) == 257


def test_coalesced_packets_are_walked_by_their_lengths() -> None:
    datagram = SERVER_INITIAL + CLIENT_INITIAL[:200]
    first, second = quic.long_header_packets(datagram)
    assert (first.start, first.end) == (0, len(SERVER_INITIAL))
    assert second.start == len(SERVER_INITIAL)
    assert second.end > len(datagram)  # cut: the caller sees it did not hold it whole
    # Zeros padding a datagram after its packets are no packet.
    assert len(quic.long_header_packets(SERVER_INITIAL + bytes(40))) == 1
    # A short header runs to the datagram's end.
    assert quic.long_header_packets(bytes([0x41]) + bytes(40)) == []


def test_peeking_needs_only_the_first_bytes() -> None:
    ids = quic.peek_long_header(CLIENT_INITIAL[:20])
    assert ids is not None
    assert (ids.version, ids.kind, ids.dcid.hex(), ids.scid) == (
        quic.VERSION_1,
        quic.PacketType.INITIAL,
        "8394c8f03e515708",
        b"",
    )
    cut = quic.peek_long_header(CLIENT_INITIAL[:14])
    assert cut is not None
    assert cut.scid is None
    assert quic.peek_long_header(CLIENT_INITIAL[:10]) is None
    assert quic.peek_long_header(bytes([0x41]) + bytes(20)) is None


def test_handshake_frames_give_their_crypto_data() -> None:
    ack_ecn = bytes([quic.FRAME_ACK_ECN, 5, 0, 1, 0, 1, 1, 0, 0, 0])  # one more range
    payload = (
        bytes([quic.FRAME_PADDING, quic.FRAME_PING])
        + ack_ecn
        + bytes([quic.FRAME_CRYPTO, 0x05, 3])
        + b"abc"
        + bytes([quic.FRAME_CRYPTO, 0x00, 2])
        + b"xy"
        + bytes(10)
    )
    assert quic.crypto_frames(payload) == [(5, b"abc"), (0, b"xy")]
    close = bytes([quic.FRAME_CONNECTION_CLOSE, 0x0A, 0, 0])
    assert quic.crypto_frames(close + bytes([quic.FRAME_CRYPTO, 0, 1]) + b"z") == []
    with pytest.raises(quic.QuicFormatError, match="frame type 0x08"):
        quic.crypto_frames(bytes([0x08, 0, 0]))  # STREAM is not allowed there
    with pytest.raises(quic.QuicFormatError):
        quic.crypto_frames(bytes([quic.FRAME_CRYPTO, 0, 9]) + b"short")


def test_the_crypto_stream_is_put_back_in_order() -> None:
    stream = quic.CryptoStream()
    stream.add(6, b"ghij")
    stream.add(0, b"abc")
    assert stream.contiguous() == b"abc"  # bytes 3 to 5 have not come
    stream.add(2, b"cdef")  # overlapping
    stream.add(0, b"ab")  # repeated, shorter
    assert stream.contiguous() == b"abcdefghij"


def test_a_reserved_version_forces_negotiation() -> None:
    for randomness in (0, 0xFFFFFFFF, 0x12345678):
        version = quic.reserved_version(randomness)
        assert version & 0x0F0F0F0F == 0x0A0A0A0A
        assert version != quic.VERSION_1
    probe = quic.version_negotiation_probe(b"d" * 8, b"s" * 8, quic.reserved_version(7))
    assert len(probe) == quic.MIN_INITIAL_DATAGRAM
    header = quic.parse_long_header(probe)
    assert (header.kind, header.dcid, header.scid) == (
        quic.PacketType.OTHER_VERSION,
        b"d" * 8,
        b"s" * 8,
    )


def test_a_servers_version_negotiation_answers_the_probe() -> None:
    answer = bytes.fromhex(VERSION_NEGOTIATION["answer"])
    dcid, scid = (
        bytes.fromhex(VERSION_NEGOTIATION["dcid"]),
        bytes.fromhex(VERSION_NEGOTIATION["scid"]),
    )
    assert quic.answers_probe(answer, dcid, scid)
    assert quic.VERSION_1 in quic.parse_long_header(answer).versions
    assert not quic.answers_probe(answer, scid, dcid)  # another probe's
    assert not quic.answers_probe(CLIENT_INITIAL, dcid, scid)
    assert not quic.answers_probe(b"\x80", dcid, scid)
