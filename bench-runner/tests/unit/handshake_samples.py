"""What a mode's connections negotiated, as results.json holds it, for the tests of the
files and points made from it."""

from bench_runner.influx_schema import Tag
from bench_runner.wire.handshake_model import Handshakes, Negotiated
from bench_runner.wire.handshakes import CLIENT_ID, SERVER_ID


def _wire(values: dict[str, int]) -> Negotiated:
    return Negotiated(values=values, source="wire")


def ssh_handshakes(kex: dict[str, int]) -> Handshakes:
    """SSH connections, one per count of ``kex``'s values: aes128-ctr with HMAC-SHA2-256."""
    connections = sum(kex.values())
    parameters = {
        Tag.SSH_KEX: _wire(kex),
        Tag.SSH_HOST_KEY: _wire({"ssh-ed25519": connections}),
        Tag.SSH_CIPHER_CS: _wire({"aes128-ctr": connections}),
        Tag.SSH_CIPHER_SC: _wire({"aes128-ctr": connections}),
        Tag.SSH_MAC_CS: _wire({"hmac-sha2-256": connections}),
        Tag.SSH_MAC_SC: _wire({"hmac-sha2-256": connections}),
        CLIENT_ID: _wire({"SSH-2.0-paramiko_5.1.0": connections}),
        SERVER_ID: _wire({"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u7": connections}),
    }
    return Handshakes(
        available=True,
        connections=connections,
        parameters=parameters,
        varied=[Tag.SSH_KEX] if len(kex) > 1 else [],
        capture_drops=0,
    )


def tls_handshakes(resumed: dict[str, int]) -> Handshakes:
    """TLS 1.3 connections with x25519 and ALPN http/1.1 from the library, resumed or not
    as ``resumed`` counts them."""
    connections = sum(resumed.values())
    parameters = {
        Tag.TLS_VERSION: _wire({"TLSv1.3": connections}),
        Tag.TLS_CIPHER: _wire({"TLS_AES_256_GCM_SHA384": connections}),
        Tag.TLS_GROUP: _wire({"x25519": connections}),
        Tag.TLS_ALPN: Negotiated(values={"http/1.1": connections}, source="library"),
        Tag.TLS_RESUMED: _wire(resumed),
        Tag.TLS_HELLO_RETRY: _wire({"false": connections}),
    }
    return Handshakes(
        available=True,
        connections=connections,
        parameters=parameters,
        varied=[Tag.TLS_RESUMED] if len(resumed) > 1 else [],
        capture_drops=0,
    )
