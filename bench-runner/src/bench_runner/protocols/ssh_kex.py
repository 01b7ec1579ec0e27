"""SSH's algorithm negotiation, read from the messages both sides send in clear.

Before any key exists each side sends its identification line (``SSH-2.0-<software>``,
RFC 4253 section 4.2) and one ``SSH_MSG_KEXINIT`` (section 7.1): a cookie and ten
name-lists, the algorithms it supports in order of preference. Every algorithm of the
connection follows from the two lists: for each, the first algorithm of the client's list
that the server's list also holds (section 7.1). Ciphers, MACs and compression are chosen
per direction. An AEAD cipher (``chacha20-poly1305@openssh.com``, ``aes*-gcm@openssh.com``)
authenticates itself, so its direction has no MAC: OpenSSH says ``<implicit>``, as here.

The pseudo-algorithms that only announce an extension (``ext-info-c``/``-s``, RFC 8308;
``kex-strict-*``, OpenSSH's strict key exchange) are never a key exchange and are skipped.
"""

from dataclasses import dataclass

IDENTIFICATION_PREFIX = b"SSH-"
SSH_MSG_KEXINIT = 20
COOKIE_BYTES = 16
PACKET_HEADER_BYTES = 5
"""``uint32 packet_length`` and ``byte padding_length`` before the payload."""
MAX_IDENTIFICATION_BYTES = 255
"""The identification line's limit, CR LF included (RFC 4253 section 4.2)."""
NAME_LISTS = (
    "kex",
    "host_key",
    "cipher_cs",
    "cipher_sc",
    "mac_cs",
    "mac_sc",
    "compression_cs",
    "compression_sc",
    "languages_cs",
    "languages_sc",
)
"""The name-lists of a KEXINIT in their order on the wire (``_cs``: client to server)."""
NEGOTIATED = ("kex", "host_key", "cipher_cs", "cipher_sc", "mac_cs", "mac_sc")
"""What the runner records of a connection, in the order sshd logs it."""
IMPLICIT_MAC = "<implicit>"
AEAD_CIPHERS = frozenset(
    {"chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com", "aes256-gcm@openssh.com"}
)
EXTENSION_MARKERS = frozenset({"ext-info-c", "ext-info-s"})
STRICT_KEX_PREFIX = "kex-strict-"


class SshFormatError(ValueError):
    """Bytes that are not the identification line or KEXINIT they claim to be."""


def is_pseudo_algorithm(name: str) -> bool:
    """An entry of the kex list that announces an extension, never a key exchange."""
    return name in EXTENSION_MARKERS or name.startswith(STRICT_KEX_PREFIX)


def split_identification(payload: bytes) -> tuple[str, bytes]:
    """The identification line at the start of ``payload`` (without CR LF) and the bytes
    after it (a KEXINIT sent in the same segment)."""
    if not payload.startswith(IDENTIFICATION_PREFIX):
        raise SshFormatError("no SSH identification line")
    end = payload.find(b"\n", 0, MAX_IDENTIFICATION_BYTES)
    if end < 0:
        raise SshFormatError("identification line not ended within 255 bytes")
    line = payload[:end].rstrip(b"\r")
    try:
        text = line.decode("ascii")
    except UnicodeDecodeError as exc:
        raise SshFormatError(f"identification line not ASCII: {exc}") from exc
    return text, payload[end + 1 :]


def is_kexinit_packet(data: bytes) -> bool:
    """Whether ``data`` starts with an unencrypted binary packet whose message is KEXINIT."""
    return len(data) > PACKET_HEADER_BYTES and data[PACKET_HEADER_BYTES] == SSH_MSG_KEXINIT


@dataclass(frozen=True)
class KexInit:
    """One side's ``SSH_MSG_KEXINIT``: its name-lists by ``NAME_LISTS`` name. A list the
    capture cut off (the packet was longer than the bytes kept) is missing."""

    lists: dict[str, tuple[str, ...]]

    @property
    def complete(self) -> bool:
        return len(self.lists) == len(NAME_LISTS)

    def names(self, field: str) -> tuple[str, ...] | None:
        return self.lists.get(field)


def parse_kexinit(data: bytes) -> KexInit:
    """The KEXINIT in the binary packet at the start of ``data``, which may be cut short
    (the name-lists past the cut are left out); SshFormatError when it is not one."""
    if not is_kexinit_packet(data):
        raise SshFormatError("not an SSH_MSG_KEXINIT packet")
    packet_length = int.from_bytes(data[:4], "big")
    padding = data[4]
    end = 4 + packet_length
    if packet_length < 1 + 1 + COOKIE_BYTES or padding >= packet_length:
        raise SshFormatError(f"packet length {packet_length}, padding {padding}: not a KEXINIT")
    payload_end = min(end - padding, len(data))
    offset = PACKET_HEADER_BYTES + 1 + COOKIE_BYTES
    lists: dict[str, tuple[str, ...]] = {}
    for field in NAME_LISTS:
        if offset + 4 > payload_end:
            break
        length = int.from_bytes(data[offset : offset + 4], "big")
        if offset + 4 + length > end - padding:
            raise SshFormatError(f"name-list {field} overruns the packet")
        if offset + 4 + length > payload_end:
            break  # cut off by the capture
        raw = data[offset + 4 : offset + 4 + length]
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError as exc:
            raise SshFormatError(f"name-list {field} not ASCII: {exc}") from exc
        lists[field] = tuple(text.split(",")) if text else ()
        offset += 4 + length
    return KexInit(lists)


def choose(client: tuple[str, ...], server: tuple[str, ...]) -> str | None:
    """The first of the client's algorithms the server also offers (RFC 4253 section
    7.1); None when they have none in common."""
    offered = set(server)
    return next((name for name in client if name in offered), None)


def negotiate(client: KexInit, server: KexInit) -> dict[str, str | None]:
    """Each of ``NEGOTIATED`` as the two KEXINITs decide it: None where the two lists
    have no algorithm in common (the connection fails there). KeyError names a list the
    capture cut off in either message."""
    chosen: dict[str, str | None] = {}
    for field in ("kex", "host_key", "cipher_cs", "cipher_sc"):
        ours, theirs = client.lists[field], server.lists[field]
        if field == "kex":
            ours = tuple(name for name in ours if not is_pseudo_algorithm(name))
            theirs = tuple(name for name in theirs if not is_pseudo_algorithm(name))
        chosen[field] = choose(ours, theirs)
    for mac, cipher in (("mac_cs", "cipher_cs"), ("mac_sc", "cipher_sc")):
        if chosen[cipher] in AEAD_CIPHERS:
            chosen[mac] = IMPLICIT_MAC
        else:
            chosen[mac] = choose(client.lists[mac], server.lists[mac])
    return {field: chosen[field] for field in NEGOTIATED}
