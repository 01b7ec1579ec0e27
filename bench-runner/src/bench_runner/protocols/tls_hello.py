"""TLS ClientHello and ServerHello, read from the handshake records each side sends in clear.

What a TLS 1.3 connection negotiated is in the ServerHello (RFC 8446 section 4.1.3): the
version in its ``supported_versions`` extension, the cipher suite, the key-share group in
``key_share`` and, when it carries ``pre_shared_key``, a resumed session. A ServerHello
whose random is the fixed HelloRetryRequest value asks the client for another key share
(one more round trip) and names the group it wants. The ClientHello says what the client
offered: versions, groups, key shares, ALPN protocols, a session to resume. The protocol
the server selected with ALPN is in EncryptedExtensions, encrypted in TLS 1.3: not here.

TLS 1.2 (RFC 5246 section 7.4.1): the version and cipher suite are the ServerHello's own
fields, a resumed session echoes the client's session id, and the ECDHE group is in the
ServerKeyExchange later in the server's flight (read when the captured bytes reach it).

Messages may be cut off where the capture stopped keeping bytes: the parsers read what is
there and say which parts were cut.
"""

from dataclasses import dataclass

RECORD_HANDSHAKE = 0x16
RECORD_HEADER_BYTES = 5
HANDSHAKE_HEADER_BYTES = 4
CLIENT_HELLO = 1
SERVER_HELLO = 2
SERVER_KEY_EXCHANGE = 12
RANDOM_BYTES = 32
HELLO_RETRY_RANDOM = bytes.fromhex(
    "cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c"
)
"""SHA-256 of "HelloRetryRequest" (RFC 8446 section 4.1.3)."""
EXT_SUPPORTED_GROUPS = 10
EXT_ALPN = 16
EXT_PRE_SHARED_KEY = 41
EXT_SUPPORTED_VERSIONS = 43
EXT_KEY_SHARE = 51
ECDHE_NAMED_CURVE = 3
TLS12 = 0x0303

VERSIONS = {0x0304: "TLSv1.3", 0x0303: "TLSv1.2", 0x0302: "TLSv1.1", 0x0301: "TLSv1"}
"""OpenSSL's names, as Python's ``ssl.SSLSocket.version()`` gives them."""
CIPHER_SUITES = {
    0x1301: "TLS_AES_128_GCM_SHA256",
    0x1302: "TLS_AES_256_GCM_SHA384",
    0x1303: "TLS_CHACHA20_POLY1305_SHA256",
    0x1304: "TLS_AES_128_CCM_SHA256",
    0x1305: "TLS_AES_128_CCM_8_SHA256",
    0xC02B: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    0xC02C: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    0xC02F: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    0xC030: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    0xCCA8: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
    0xCCA9: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
    0x009E: "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256",
    0x009F: "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384",
}
"""IANA's names (the TLS Cipher Suites registry); others are written as hex."""
GROUPS = {
    0x0017: "secp256r1",
    0x0018: "secp384r1",
    0x0019: "secp521r1",
    0x001D: "x25519",
    0x001E: "x448",
    0x001F: "brainpoolP256r1tls13",
    0x0020: "brainpoolP384r1tls13",
    0x0021: "brainpoolP512r1tls13",
    0x0100: "ffdhe2048",
    0x0101: "ffdhe3072",
    0x0102: "ffdhe4096",
    0x0103: "ffdhe6144",
    0x0104: "ffdhe8192",
    0x0200: "MLKEM512",
    0x0201: "MLKEM768",
    0x0202: "MLKEM1024",
    0x11EB: "SecP256r1MLKEM768",
    0x11EC: "X25519MLKEM768",
    0x11ED: "SecP384r1MLKEM1024",
    0x6399: "X25519Kyber768Draft00",
}
"""IANA's names (the TLS Supported Groups registry); others are written as hex."""


class TlsFormatError(ValueError):
    """Bytes that are not the TLS handshake they claim to be."""


def version_name(code: int) -> str:
    return VERSIONS.get(code, f"0x{code:04x}")


def cipher_suite_name(code: int) -> str:
    return CIPHER_SUITES.get(code, f"0x{code:04x}")


def group_name(code: int) -> str:
    return GROUPS.get(code, f"0x{code:04x}")


@dataclass(frozen=True)
class Message:
    """A handshake message; ``complete`` false when the capture cut its body short."""

    kind: int
    body: bytes
    complete: bool


def is_hello_record(data: bytes) -> bool:
    """Whether ``data`` starts with a handshake record whose first message is a hello."""
    return (
        len(data) > RECORD_HEADER_BYTES
        and data[0] == RECORD_HANDSHAKE
        and data[1] == 0x03
        and data[RECORD_HEADER_BYTES] in (CLIENT_HELLO, SERVER_HELLO)
    )


def handshake_messages(data: bytes) -> list[Message]:
    """The handshake messages of the handshake records at the start of ``data`` (up to the
    first record of another type: ChangeCipherSpec, encrypted data), a message spanning
    records joined. The last may be cut short where ``data`` ends."""
    stream = bytearray()
    offset = 0
    while offset + RECORD_HEADER_BYTES <= len(data) and data[offset] == RECORD_HANDSHAKE:
        length = int.from_bytes(data[offset + 3 : offset + 5], "big")
        stream += data[offset + RECORD_HEADER_BYTES : offset + RECORD_HEADER_BYTES + length]
        offset += RECORD_HEADER_BYTES + length
    if not stream:
        raise TlsFormatError("no TLS handshake record")
    return messages_of(bytes(stream))


def messages_of(stream: bytes) -> list[Message]:
    """The handshake messages of a handshake byte stream without records (QUIC's CRYPTO
    frames carry them so, RFC 9001 section 4); the last may be cut short where it ends."""
    messages = []
    at = 0
    while at + HANDSHAKE_HEADER_BYTES <= len(stream):
        kind = stream[at]
        length = int.from_bytes(stream[at + 1 : at + 4], "big")
        body = bytes(stream[at + HANDSHAKE_HEADER_BYTES : at + HANDSHAKE_HEADER_BYTES + length])
        messages.append(Message(kind, body, len(body) == length))
        at += HANDSHAKE_HEADER_BYTES + length
    return messages


class _EndedError(Exception):
    """The bytes end before the field being read."""


class _Reader:
    """Reads a message body front to back; ``_EndedError`` when the body ends early."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, count: int) -> bytes:
        if self.at + count > len(self.data):
            raise _EndedError
        chunk = self.data[self.at : self.at + count]
        self.at += count
        return chunk

    def number(self, size: int) -> int:
        return int.from_bytes(self.take(size), "big")

    def vector(self, length_size: int) -> bytes:
        return self.take(self.number(length_size))

    def extensions(self) -> list[tuple[int, bytes]]:
        """Extensions whole in the body, in order; stops at one the body cuts."""
        found: list[tuple[int, bytes]] = []
        try:
            total = self.number(2)
            end = self.at + total
            while self.at < end:
                kind = self.number(2)
                found.append((kind, self.vector(2)))
        except _EndedError:
            pass
        return found


def _numbers(data: bytes, size: int) -> tuple[int, ...]:
    return tuple(int.from_bytes(data[i : i + size], "big") for i in range(0, len(data), size))


def _names(data: bytes) -> tuple[str, ...]:
    """A list of length-prefixed strings (ALPN's ProtocolNameList)."""
    reader = _Reader(data)
    names = []
    while reader.at < len(data):
        names.append(reader.vector(1).decode("ascii", errors="replace"))
    return tuple(names)


@dataclass(frozen=True)
class ClientHello:
    """What the client offered; a field is None when the capture cut it off (an
    extension the client did not send, in a whole message: an empty tuple or False)."""

    versions: tuple[int, ...] | None
    session_id: bytes
    groups: tuple[int, ...] | None
    key_shares: tuple[int, ...] | None
    alpn: tuple[str, ...] | None
    offers_session: bool | None
    """A ``pre_shared_key`` (TLS 1.3 resumption) was offered."""
    complete: bool


def parse_client_hello(message: Message) -> ClientHello:
    if message.kind != CLIENT_HELLO:
        raise TlsFormatError(f"handshake message {message.kind} is not a ClientHello")
    reader = _Reader(message.body)
    try:
        legacy_version = reader.number(2)
        reader.take(RANDOM_BYTES)
        session_id = reader.vector(1)
        reader.vector(2)  # cipher suites
        reader.vector(1)  # compression methods
    except _EndedError as exc:
        raise TlsFormatError("ClientHello cut before its extensions") from exc
    extensions = dict(reader.extensions())
    seen_all = message.complete
    # An extension the client did not send, in a message held whole: empty; one the
    # capture may have cut off: unknown.
    absent: tuple[()] | None = () if seen_all else None
    versions = extensions.get(EXT_SUPPORTED_VERSIONS)
    groups = extensions.get(EXT_SUPPORTED_GROUPS)
    shares = extensions.get(EXT_KEY_SHARE)
    alpn = extensions.get(EXT_ALPN)
    try:
        return ClientHello(
            versions=_numbers(versions[1:], 2)
            if versions is not None
            else ((legacy_version,) if seen_all else None),
            session_id=session_id,
            groups=_numbers(groups[2:], 2) if groups is not None else absent,
            key_shares=_key_share_groups(shares[2:]) if shares is not None else absent,
            alpn=_names(alpn[2:]) if alpn is not None else absent,
            offers_session=True
            if EXT_PRE_SHARED_KEY in extensions
            else (False if seen_all else None),
            complete=seen_all,
        )
    except _EndedError as exc:
        raise TlsFormatError("ClientHello extension shorter than its contents") from exc


def _key_share_groups(data: bytes) -> tuple[int, ...]:
    reader = _Reader(data)
    groups = []
    while reader.at < len(data):
        groups.append(reader.number(2))
        reader.vector(2)
    return tuple(groups)


@dataclass(frozen=True)
class ServerHello:
    """What the server chose. ``group`` is None without a key share (a TLS 1.3 resumption
    without (EC)DHE, or TLS 1.2 before its ServerKeyExchange)."""

    version: int
    cipher_suite: int
    group: int | None
    session_id: bytes
    resumed_psk: bool
    """TLS 1.3: the server accepted a pre-shared key (a resumed session)."""
    hello_retry: bool

    @property
    def tls13(self) -> bool:
        return self.version >= 0x0304


def parse_server_hello(message: Message) -> ServerHello:
    if message.kind != SERVER_HELLO:
        raise TlsFormatError(f"handshake message {message.kind} is not a ServerHello")
    if not message.complete:
        raise TlsFormatError("ServerHello cut short by the capture")
    reader = _Reader(message.body)
    try:
        legacy_version = reader.number(2)
        random = reader.take(RANDOM_BYTES)
        session_id = reader.vector(1)
        cipher_suite = reader.number(2)
        reader.take(1)  # compression method
    except _EndedError as exc:
        raise TlsFormatError("ServerHello shorter than its fixed fields") from exc
    extensions = dict(reader.extensions()) if reader.at < len(message.body) else {}
    version = extensions.get(EXT_SUPPORTED_VERSIONS)
    share = extensions.get(EXT_KEY_SHARE)
    return ServerHello(
        version=int.from_bytes(version[:2], "big") if version is not None else legacy_version,
        cipher_suite=cipher_suite,
        # A HelloRetryRequest's key_share is the group alone; a ServerHello's starts with it.
        group=int.from_bytes(share[:2], "big") if share is not None and len(share) >= 2 else None,
        session_id=session_id,
        resumed_psk=EXT_PRE_SHARED_KEY in extensions,
        hello_retry=random == HELLO_RETRY_RANDOM,
    )


def server_key_exchange_group(message: Message) -> int | None:
    """The named curve of a TLS 1.2 ECDHE ServerKeyExchange; None for other parameters."""
    if message.kind != SERVER_KEY_EXCHANGE or len(message.body) < 3:
        return None
    if message.body[0] != ECDHE_NAMED_CURVE:
        return None
    return int.from_bytes(message.body[1:3], "big")
