"""Hand-made SSH KEXINIT packets and TLS hellos, for the rules the recorded ones do not
exercise (no algorithm in common, a HelloRetryRequest, TLS 1.2, bytes cut short)."""

import struct

from bench_runner.protocols import ssh_kex, tls_hello


def name_list(names: tuple[str, ...]) -> bytes:
    text = ",".join(names).encode("ascii")
    return struct.pack("!I", len(text)) + text


def kexinit(**lists: tuple[str, ...]) -> bytes:
    """A KEXINIT binary packet; every name-list not given is ``none``."""
    payload = bytes([ssh_kex.SSH_MSG_KEXINIT]) + bytes(ssh_kex.COOKIE_BYTES)
    for field in ssh_kex.NAME_LISTS:
        payload += name_list(lists.get(field, ("none",) if "compression" in field else ()))
    payload += b"\x00" + bytes(4)  # first_kex_packet_follows, reserved
    padding = -(len(payload) + 5) % 8
    padding += 8 if padding < 4 else 0  # at least 4 (RFC 4253 section 6)
    return struct.pack("!IB", len(payload) + padding + 1, padding) + payload + bytes(padding)


def extension(kind: int, body: bytes) -> bytes:
    return struct.pack("!HH", kind, len(body)) + body


def record(message_kind: int, body: bytes, version: bytes = b"\x03\x03") -> bytes:
    message = bytes([message_kind]) + len(body).to_bytes(3, "big") + body
    return b"\x16" + version + struct.pack("!H", len(message)) + message


def client_hello(
    *,
    alpn: tuple[str, ...] | None = None,
    groups: tuple[int, ...] = (0x001D, 0x0017),
    session_id: bytes = bytes(32),
    psk: bool = False,
) -> bytes:
    names = b"".join(bytes([len(name)]) + name.encode() for name in alpn or ())
    extensions = extension(tls_hello.EXT_SUPPORTED_VERSIONS, b"\x04\x03\x04\x03\x03")
    extensions += extension(
        tls_hello.EXT_SUPPORTED_GROUPS,
        struct.pack("!H", 2 * len(groups)) + b"".join(struct.pack("!H", g) for g in groups),
    )
    share = struct.pack("!HH", groups[0], 32) + bytes(32)
    extensions += extension(tls_hello.EXT_KEY_SHARE, struct.pack("!H", len(share)) + share)
    if alpn is not None:
        extensions += extension(tls_hello.EXT_ALPN, struct.pack("!H", len(names)) + names)
    if psk:
        extensions += extension(tls_hello.EXT_PRE_SHARED_KEY, bytes(8))
    body = (
        b"\x03\x03"
        + bytes(32)
        + bytes([len(session_id)])
        + session_id
        + b"\x00\x02\x13\x01"
        + b"\x01\x00"
        + struct.pack("!H", len(extensions))
        + extensions
    )
    return record(tls_hello.CLIENT_HELLO, body, b"\x03\x01")


def server_hello(
    *,
    version: int = 0x0304,
    cipher: int = 0x1302,
    group: int | None = 0x001D,
    psk: bool = False,
    retry: bool = False,
    session_id: bytes = bytes(32),
) -> bytes:
    extensions = b""
    if version >= 0x0304:
        extensions += extension(tls_hello.EXT_SUPPORTED_VERSIONS, struct.pack("!H", version))
    if group is not None:
        share = struct.pack("!H", group) if retry else struct.pack("!HH", group, 32) + bytes(32)
        extensions += extension(tls_hello.EXT_KEY_SHARE, share)
    if psk:
        extensions += extension(tls_hello.EXT_PRE_SHARED_KEY, b"\x00\x00")
    body = (
        b"\x03\x03"
        + (tls_hello.HELLO_RETRY_RANDOM if retry else bytes(range(32)))
        + bytes([len(session_id)])
        + session_id
        + struct.pack("!H", cipher)
        + b"\x00"
        + (struct.pack("!H", len(extensions)) + extensions if extensions else b"")
    )
    return record(tls_hello.SERVER_HELLO, body)


def server_key_exchange(curve: int) -> bytes:
    """A TLS 1.2 ECDHE ServerKeyExchange record (the key and signature zeroed)."""
    return record(tls_hello.SERVER_KEY_EXCHANGE, bytes([3]) + struct.pack("!H", curve) + bytes(40))
