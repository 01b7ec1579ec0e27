"""The protection of QUIC version 1's Initial packets, which anyone can remove (RFC 9001
section 5.2): both directions' keys derive from the destination connection ID of the
client's first Initial and a salt the RFC publishes, so a capture reads the ClientHello
and the ServerHello inside them as a TLS-over-TCP capture reads the hello records. After a
Retry the client's next Initial carries the Retry's source connection ID, from which both
directions' keys derive anew (section 5.2, 17.2.5).

Removing the header protection (section 5.4) gives the packet number's length and value;
the payload is then opened with AES-128-GCM, the header as associated data (section 5.3).
Only Initial packets are opened here: every later packet's keys come from the key exchange.
"""

from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

from bench_runner.protocols import quic

INITIAL_SALT_V1 = bytes.fromhex("38762cf7f55934b34d179ae6a4c80cadccbb7f0a")
SAMPLE_OFFSET = 4
"""The header protection sample starts this many bytes past the packet number's start,
whatever the packet number's length (RFC 9001 section 5.4.2)."""
SAMPLE_BYTES = 16
KEY_BYTES, IV_BYTES, HP_BYTES = 16, 12, 16
SECRET_BYTES = 32


class QuicDecryptError(ValueError):
    """An Initial packet that these keys do not open (another connection's, or damaged)."""


@dataclass(frozen=True)
class PacketKeys:
    """One direction's packet protection keys."""

    key: bytes
    iv: bytes
    hp: bytes


def expand_label(secret: bytes, label: str, length: int) -> bytes:
    """TLS 1.3's HKDF-Expand-Label with an empty context (RFC 8446 section 7.1)."""
    full = b"tls13 " + label.encode("ascii")
    info = length.to_bytes(2, "big") + bytes([len(full)]) + full + b"\x00"
    return HKDFExpand(hashes.SHA256(), length, info).derive(secret)


def _keys(secret: bytes) -> PacketKeys:
    return PacketKeys(
        expand_label(secret, "quic key", KEY_BYTES),
        expand_label(secret, "quic iv", IV_BYTES),
        expand_label(secret, "quic hp", HP_BYTES),
    )


def initial_secrets(dcid: bytes) -> tuple[bytes, bytes]:
    """The client's and the server's Initial secrets for the client's destination
    connection ID (HKDF-Extract with the version 1 salt, then each side's label)."""
    extract = hmac.HMAC(INITIAL_SALT_V1, hashes.SHA256())
    extract.update(dcid)
    initial = extract.finalize()
    return (
        expand_label(initial, "client in", SECRET_BYTES),
        expand_label(initial, "server in", SECRET_BYTES),
    )


def initial_keys(dcid: bytes) -> tuple[PacketKeys, PacketKeys]:
    """The client's and the server's Initial packet keys."""
    client, server = initial_secrets(dcid)
    return _keys(client), _keys(server)


def open_initial(
    datagram: bytes, packet: quic.LongHeader, keys: PacketKeys, largest: int | None
) -> tuple[int, bytes]:
    """The packet number and decrypted payload of the Initial ``packet`` of ``datagram``
    (held whole); ``largest``: the largest packet number opened so far in its direction."""
    sample_at = packet.number_at + SAMPLE_OFFSET
    if sample_at + SAMPLE_BYTES > packet.end or packet.end > len(datagram):
        raise QuicDecryptError("Initial packet too short for its header protection sample")
    encryptor = Cipher(algorithms.AES(keys.hp), modes.ECB()).encryptor()
    mask = encryptor.update(datagram[sample_at : sample_at + SAMPLE_BYTES])
    first = datagram[packet.start] ^ (mask[0] & 0x0F)
    number_length = (first & 0x03) + 1
    number_end = packet.number_at + number_length
    number_bytes = bytes(
        byte ^ pad
        for byte, pad in zip(
            datagram[packet.number_at : number_end], mask[1 : 1 + number_length], strict=True
        )
    )
    number = quic.decode_packet_number(largest, int.from_bytes(number_bytes, "big"), number_length)
    header = bytes([first]) + datagram[packet.start + 1 : packet.number_at] + number_bytes
    nonce = (int.from_bytes(keys.iv, "big") ^ number).to_bytes(IV_BYTES, "big")
    try:
        payload = AESGCM(keys.key).decrypt(nonce, datagram[number_end : packet.end], header)
    except InvalidTag as exc:
        raise QuicDecryptError("Initial packet does not open with these keys") from exc
    return number, payload
