"""SSH's negotiation from the two KEXINITs (RFC 4253 section 7.1), on hand-made packets for
its rules; the recorded handshakes of real clients are in test_handshakes_recorded.py."""

import pytest

from bench_runner.protocols import ssh_kex
from handshake_bytes import kexinit

CLIENT = {
    "kex": ("sntrup761x25519-sha512@openssh.com", "curve25519-sha256", "ext-info-c"),
    "host_key": ("ssh-ed25519", "rsa-sha2-512"),
    "cipher_cs": ("chacha20-poly1305@openssh.com", "aes128-ctr"),
    "cipher_sc": ("aes128-ctr", "chacha20-poly1305@openssh.com"),
    "mac_cs": ("hmac-sha2-256-etm@openssh.com", "hmac-sha2-256"),
    "mac_sc": ("hmac-sha2-512", "hmac-sha2-256"),
}
SERVER = {
    "kex": (
        "curve25519-sha256",
        "sntrup761x25519-sha512@openssh.com",
        "kex-strict-s-v00@openssh.com",
    ),
    "host_key": ("rsa-sha2-512", "ssh-ed25519"),
    "cipher_cs": ("aes128-ctr", "chacha20-poly1305@openssh.com"),
    "cipher_sc": ("chacha20-poly1305@openssh.com", "aes128-ctr"),
    "mac_cs": ("hmac-sha2-256",),
    "mac_sc": ("hmac-sha2-256", "hmac-sha2-512"),
}


def test_the_first_client_algorithm_the_server_offers_wins_each_list() -> None:
    chosen = ssh_kex.negotiate(
        ssh_kex.parse_kexinit(kexinit(**CLIENT)), ssh_kex.parse_kexinit(kexinit(**SERVER))
    )
    assert chosen == {
        "kex": "sntrup761x25519-sha512@openssh.com",
        "host_key": "ssh-ed25519",
        "cipher_cs": "chacha20-poly1305@openssh.com",
        "cipher_sc": "aes128-ctr",
        "mac_cs": ssh_kex.IMPLICIT_MAC,  # an AEAD cipher authenticates itself
        "mac_sc": "hmac-sha2-512",
    }


@pytest.mark.parametrize("cipher", sorted(ssh_kex.AEAD_CIPHERS))
def test_an_aead_cipher_has_an_implicit_mac(cipher: str) -> None:
    lists = {"kex": ("curve25519-sha256",), "host_key": ("ssh-ed25519",)}
    ciphers = {"cipher_cs": (cipher,), "cipher_sc": (cipher,), "mac_cs": ("x",), "mac_sc": ("y",)}
    chosen = ssh_kex.negotiate(
        ssh_kex.parse_kexinit(kexinit(**lists, **ciphers)),
        ssh_kex.parse_kexinit(kexinit(**lists, **ciphers)),
    )
    assert chosen["mac_cs"] == chosen["mac_sc"] == "<implicit>"


def test_extension_markers_are_never_the_key_exchange() -> None:
    client = kexinit(kex=("ext-info-c", "kex-strict-c-v00@openssh.com", "curve25519-sha256"))
    server = kexinit(kex=("ext-info-c", "kex-strict-c-v00@openssh.com", "curve25519-sha256"))
    chosen = ssh_kex.negotiate(ssh_kex.parse_kexinit(client), ssh_kex.parse_kexinit(server))
    assert chosen["kex"] == "curve25519-sha256"


def test_lists_without_a_common_algorithm_negotiate_nothing() -> None:
    chosen = ssh_kex.negotiate(
        ssh_kex.parse_kexinit(kexinit(kex=("curve25519-sha256",))),
        ssh_kex.parse_kexinit(kexinit(kex=("diffie-hellman-group14-sha1",))),
    )
    assert chosen["kex"] is None


def test_identification_and_kexinit_in_one_segment() -> None:
    packet = kexinit(**CLIENT)
    line, rest = ssh_kex.split_identification(b"SSH-2.0-paramiko_5.1.0\r\n" + packet)
    assert line == "SSH-2.0-paramiko_5.1.0"
    assert ssh_kex.is_kexinit_packet(rest)
    assert ssh_kex.parse_kexinit(rest).lists["kex"] == CLIENT["kex"]


def test_a_kexinit_cut_by_the_capture_keeps_the_lists_before_the_cut() -> None:
    packet = kexinit(**CLIENT)
    cut = ssh_kex.parse_kexinit(packet[: packet.index(b"hmac-sha2-512,hmac-sha2-256")])
    assert not cut.complete
    assert cut.names("mac_cs") == CLIENT["mac_cs"]
    assert cut.names("mac_sc") is None
    with pytest.raises(KeyError, match="mac_sc"):
        ssh_kex.negotiate(cut, ssh_kex.parse_kexinit(kexinit(**SERVER)))
    assert ssh_kex.parse_kexinit(packet).complete


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"HTTP/1.1 200 OK\r\n", "no SSH identification"),
        (b"SSH-2.0-" + b"x" * 300, "not ended within 255"),
        (b"SSH-2.0-\xff\r\n", "not ASCII"),
    ],
)
def test_a_bad_identification_line_is_refused(data: bytes, message: str) -> None:
    with pytest.raises(ssh_kex.SshFormatError, match=message):
        ssh_kex.split_identification(data)


def test_bytes_that_are_no_kexinit_are_refused() -> None:
    with pytest.raises(ssh_kex.SshFormatError, match="not an SSH_MSG_KEXINIT"):
        ssh_kex.parse_kexinit(bytes.fromhex("0000001c0615") + bytes(20))
    overrun = bytearray(kexinit(**CLIENT))
    overrun[22:26] = (10_000).to_bytes(4, "big")  # the kex list's length
    with pytest.raises(ssh_kex.SshFormatError, match="overruns the packet"):
        ssh_kex.parse_kexinit(bytes(overrun))
