"""QUIC packets as anyone on the path sees them, before any key is known (RFC 8999, RFC 9000
section 17): the headers, the frames of a decrypted Initial packet, and the Version
Negotiation exchange.

A datagram holds one or more packets. A long-header packet (first bit set) names its version
and both connection IDs, and, for QUIC version 1's Initial, 0-RTT and Handshake packets, its
own length, so several may share a datagram (coalesced); a short-header (1-RTT) packet runs
to the datagram's end and shows nothing but its destination connection ID, whose length only
the endpoints know. A packet of a version this module does not know is read as far as the
invariants go (RFC 8999): version and connection IDs.

An Initial's CRYPTO frames carry the TLS handshake messages (no TLS record layer), at
offsets in one stream per direction that packets may split, repeat and reorder. The
protection of Initial packets (RFC 9001 section 5) is not here: it needs a cipher
(``wire.quic_initial``).
"""

from dataclasses import dataclass
from enum import StrEnum

VERSION_NEGOTIATION = 0x00000000
VERSION_1 = 0x00000001
LONG_HEADER = 0x80
FIXED_BIT = 0x40
LONG_TYPE_SHIFT = 4
MAX_V1_CONNECTION_ID = 20
MIN_INITIAL_DATAGRAM = 1200
"""A client's datagram carrying an Initial is at least this long (RFC 9000 section 14.1); a
server answers an unknown version only in such a datagram (section 6.1)."""
RESERVED_VERSION_BITS = 0x0A0A0A0A
RESERVED_VERSION_MASK = 0x0F0F0F0F
"""Versions ``0x?a?a?a?a`` are reserved to force Version Negotiation (section 15)."""
AEAD_TAG = 16
FRAME_PADDING, FRAME_PING, FRAME_ACK, FRAME_ACK_ECN = 0x00, 0x01, 0x02, 0x03
FRAME_CRYPTO = 0x06
FRAME_CONNECTION_CLOSE = 0x1C
SMALLEST_REQUEST_PACKET = 1 + 1 + 2 + 2 + 6 + AEAD_TAG
"""The fewest bytes of a 1-RTT packet that carries an HTTP/3 request, its destination
connection ID aside: the first byte, a one-byte packet number, a STREAM frame's type and
stream ID (no offset, no length: the frame runs to the packet's end), the HEADERS frame's type
and length, and a QPACK field section of its two prefix bytes and the four field lines every
request has (``:method``, ``:scheme``, ``:path`` and ``:authority`` or ``host``: RFC 9114
section 4.3.1), one byte each at the very least (a static or dynamic table reference), then
the AEAD tag. A client's datagram shorter than this and the connection ID carries no request:
acknowledgments, flow control, a close."""


class PacketType(StrEnum):
    INITIAL = "Initial"
    ZERO_RTT = "0-RTT"
    HANDSHAKE = "Handshake"
    RETRY = "Retry"
    VERSION_NEGOTIATION = "Version Negotiation"
    OTHER_VERSION = "other version"
    """A long header of a version this module does not read past its connection IDs."""


V1_TYPES = (PacketType.INITIAL, PacketType.ZERO_RTT, PacketType.HANDSHAKE, PacketType.RETRY)
"""QUIC version 1's long-header types, by the two type bits of the first byte."""


class QuicFormatError(ValueError):
    """Bytes that are not the QUIC packet or frame they claim to be."""


def varint(data: bytes, at: int) -> tuple[int, int]:
    """The variable-length integer at ``at`` (RFC 9000 section 16) and where it ends."""
    if at >= len(data):
        raise QuicFormatError("variable-length integer cut short")
    size = 1 << (data[at] >> 6)
    if at + size > len(data):
        raise QuicFormatError("variable-length integer cut short")
    value = data[at] & 0x3F
    for byte in data[at + 1 : at + size]:
        value = value << 8 | byte
    return value, at + size


def is_long_header(datagram: bytes) -> bool:
    return bool(datagram) and bool(datagram[0] & LONG_HEADER)


@dataclass(frozen=True)
class LongHeaderIds:
    """What the first bytes of a long header show: its version, type and connection IDs.
    ``scid`` is None when the bytes end before it."""

    version: int
    kind: PacketType
    dcid: bytes
    scid: bytes | None


def _kind(first_byte: int, version: int) -> PacketType:
    if version == VERSION_NEGOTIATION:
        return PacketType.VERSION_NEGOTIATION
    if version == VERSION_1:
        return V1_TYPES[(first_byte >> LONG_TYPE_SHIFT) & 0x03]
    return PacketType.OTHER_VERSION


def peek_long_header(head: bytes) -> LongHeaderIds | None:
    """The version, type and connection IDs of the long header ``head`` starts with (it may
    be the first bytes of a datagram only); None for a short header or bytes too short."""
    if len(head) < 6 or not head[0] & LONG_HEADER:
        return None
    version = int.from_bytes(head[1:5], "big")
    dcid_end = 6 + head[5]
    if dcid_end > len(head):
        return None
    scid = None
    if dcid_end < len(head) and dcid_end + 1 + head[dcid_end] <= len(head):
        scid = bytes(head[dcid_end + 1 : dcid_end + 1 + head[dcid_end]])
    return LongHeaderIds(version, _kind(head[0], version), bytes(head[6:dcid_end]), scid)


@dataclass(frozen=True)
class LongHeader:
    """One long-header packet of a datagram. ``number_at`` is where its (protected) packet
    number starts and ``end`` where the packet ends (Initial, 0-RTT and Handshake of version
    1; the datagram's end for the others); ``token`` is an Initial's token or a Retry's;
    ``versions`` what a Version Negotiation packet lists."""

    start: int
    version: int
    kind: PacketType
    dcid: bytes
    scid: bytes
    token: bytes
    number_at: int
    end: int
    versions: tuple[int, ...] = ()


def _connection_id(data: bytes, at: int) -> tuple[bytes, int]:
    if at >= len(data) or at + 1 + data[at] > len(data):
        raise QuicFormatError("connection ID cut short")
    return bytes(data[at + 1 : at + 1 + data[at]]), at + 1 + data[at]


def parse_long_header(datagram: bytes, start: int = 0) -> LongHeader:
    """The long-header packet at ``start``. Its end may lie past the bytes held (a packet
    the capture cut): the caller compares ``end`` with what it has."""
    if start + 5 > len(datagram) or not datagram[start] & LONG_HEADER:
        raise QuicFormatError("not a long header")
    version = int.from_bytes(datagram[start + 1 : start + 5], "big")
    kind = _kind(datagram[start], version)
    dcid, at = _connection_id(datagram, start + 5)
    scid, at = _connection_id(datagram, at)
    if kind in (PacketType.OTHER_VERSION, PacketType.VERSION_NEGOTIATION):
        listed = datagram[at:]
        versions = tuple(
            int.from_bytes(listed[i : i + 4], "big") for i in range(0, len(listed) - 3, 4)
        )
        return LongHeader(start, version, kind, dcid, scid, b"", at, len(datagram), versions)
    if max(len(dcid), len(scid)) > MAX_V1_CONNECTION_ID:
        raise QuicFormatError("connection ID longer than QUIC version 1 allows")
    if kind is PacketType.RETRY:
        if len(datagram) - at < AEAD_TAG:
            raise QuicFormatError("Retry packet shorter than its integrity tag")
        token = bytes(datagram[at : len(datagram) - AEAD_TAG])
        return LongHeader(start, version, kind, dcid, scid, token, at, len(datagram))
    token = b""
    if kind is PacketType.INITIAL:
        token_length, at = varint(datagram, at)
        token = bytes(datagram[at : at + token_length])
        at += token_length
    length, at = varint(datagram, at)
    return LongHeader(start, version, kind, dcid, scid, token, at, at + length)


def long_header_packets(datagram: bytes) -> list[LongHeader]:
    """The long-header packets of a datagram, coalesced ones in order; the walk stops at a
    short header (it runs to the datagram's end), at a packet running past the bytes held,
    or at bytes that are no packet (the zeros some clients pad a datagram with)."""
    packets: list[LongHeader] = []
    at = 0
    while at < len(datagram) and datagram[at] & LONG_HEADER:
        try:
            packet = parse_long_header(datagram, at)
        except QuicFormatError:
            break
        packets.append(packet)
        if packet.end >= len(datagram):
            break
        at = packet.end
    return packets


def decode_packet_number(largest: int | None, truncated: int, length: int) -> int:
    """The full packet number of a ``length``-byte truncated one, nearest the next expected
    after ``largest`` (the largest seen so far in its space; None: none yet) (RFC 9000
    appendix A.3)."""
    expected = 0 if largest is None else largest + 1
    window = 1 << (8 * length)
    half = window // 2
    candidate = (expected & ~(window - 1)) | truncated
    if candidate <= expected - half and candidate < (1 << 62) - window:
        return candidate + window
    if candidate > expected + half and candidate >= window:
        return candidate - window
    return candidate


def crypto_frames(payload: bytes) -> list[tuple[int, bytes]]:
    """The CRYPTO frames of an Initial or Handshake packet's decrypted payload, as (offset,
    data), skipping PADDING, PING and ACK; a CONNECTION_CLOSE ends the packet's handshake.
    Any other frame is not allowed there (RFC 9000 section 12.4)."""
    found: list[tuple[int, bytes]] = []
    at = 0
    while at < len(payload):
        kind, at = varint(payload, at)
        if kind in (FRAME_PADDING, FRAME_PING):
            continue
        if kind in (FRAME_ACK, FRAME_ACK_ECN):
            _, at = varint(payload, at)  # largest acknowledged
            _, at = varint(payload, at)  # ACK delay
            ranges, at = varint(payload, at)
            _, at = varint(payload, at)  # first range
            for _ in range(2 * ranges + (3 if kind == FRAME_ACK_ECN else 0)):
                _, at = varint(payload, at)  # gaps and ranges, then the ECN counts
        elif kind == FRAME_CRYPTO:
            offset, at = varint(payload, at)
            length, at = varint(payload, at)
            if at + length > len(payload):
                raise QuicFormatError("CRYPTO frame longer than its packet")
            found.append((offset, bytes(payload[at : at + length])))
            at += length
        elif kind == FRAME_CONNECTION_CLOSE:
            break
        else:
            raise QuicFormatError(f"frame type 0x{kind:02x} in a handshake packet")
    return found


class CryptoStream:
    """One direction's CRYPTO stream of a packet number space, from frames at any offset
    (repeated, overlapping, out of order)."""

    def __init__(self) -> None:
        self._chunks: dict[int, bytes] = {}

    def add(self, offset: int, data: bytes) -> None:
        if len(data) > len(self._chunks.get(offset, b"")):
            self._chunks[offset] = data

    def contiguous(self) -> bytes:
        """The stream from its start up to the first byte no frame has brought."""
        stream = bytearray()
        for offset in sorted(self._chunks):
            if offset > len(stream):
                break
            stream += self._chunks[offset][len(stream) - offset :]
        return bytes(stream)


def reserved_version(randomness: int) -> int:
    """A version of the reserved pattern ``0x?a?a?a?a``, its free nibbles from
    ``randomness``: no server supports it, so every server answers Version Negotiation."""
    return (randomness & ~RESERVED_VERSION_MASK & 0xFFFFFFFF) | RESERVED_VERSION_BITS


def version_negotiation_probe(dcid: bytes, scid: bytes, version: int) -> bytes:
    """A long-header datagram of ``version`` padded to the size a server answers:
    ``MIN_INITIAL_DATAGRAM`` bytes."""
    header = (
        bytes([LONG_HEADER | FIXED_BIT])
        + version.to_bytes(4, "big")
        + bytes([len(dcid)])
        + dcid
        + bytes([len(scid)])
        + scid
    )
    return header + bytes(MIN_INITIAL_DATAGRAM - len(header))


def answers_probe(datagram: bytes, dcid: bytes, scid: bytes) -> bool:
    """Whether ``datagram`` is the Version Negotiation answer to a probe sent with ``dcid``
    and ``scid``: a server echoes them swapped (RFC 9000 section 17.2.1)."""
    try:
        packet = parse_long_header(datagram)
    except QuicFormatError:
        return False
    return (
        packet.kind is PacketType.VERSION_NEGOTIATION
        and packet.dcid == scid
        and packet.scid == dcid
    )
