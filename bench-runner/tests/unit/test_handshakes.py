"""From a mode's hello packets to what its connections negotiated: one negotiation per
connection (decode), then the mode's parameters with their counts (summarize_handshakes)
and their forms as tags and CSV columns."""

from collections import Counter

from bench_runner.influx_schema import Tag
from bench_runner.wire.handshake_model import (
    COLUMNS,
    NONE_SELECTED,
    NOT_OFFERED,
    csv_fields,
    handshake_tags,
    summarize_handshakes,
    unavailable,
)
from bench_runner.wire.handshakes import (
    CLIENT_ID,
    NO_KEY_SHARE,
    NONE_IN_COMMON,
    TLS12_GROUP_UNSEEN,
    Negotiation,
    decode,
)
from bench_runner.wire.hello_capture import ConnectionKey, HelloPacket
from handshake_bytes import client_hello, kexinit, server_hello, server_key_exchange

TARGET = bytes([198, 18, 101, 3])
SSH_LISTS = {
    "kex": ("curve25519-sha256",),
    "host_key": ("ssh-ed25519",),
    "cipher_cs": ("aes128-ctr",),
    "cipher_sc": ("aes128-ctr",),
    "mac_cs": ("hmac-sha2-256",),
    "mac_sc": ("hmac-sha2-256",),
}


def packet(
    own_port: int, outgoing: bool, payload: bytes, seq: int = 1, port: int = 22
) -> HelloPacket:
    return HelloPacket(ConnectionKey(TARGET, port, own_port), outgoing, seq, payload, len(payload))


def ssh_connection(own_port: int, kex: str = "curve25519-sha256") -> list[HelloPacket]:
    lists = {**SSH_LISTS, "kex": (kex,)}
    return [
        packet(own_port, False, b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u7\r\n", seq=1),
        packet(own_port, True, b"SSH-2.0-paramiko_5.1.0\r\n" + kexinit(**lists), seq=1),
        packet(own_port, False, kexinit(**lists), seq=42),
    ]


def test_ssh_connections_decode_with_retransmissions_once() -> None:
    first = ssh_connection(40001)
    packets = [*first, first[2], *ssh_connection(40002)]
    negotiations = decode(packets)
    assert [item.connection.own_port for item in negotiations] == [40001, 40002]
    [one, _] = negotiations
    assert one.protocol == "ssh"
    assert one.problem is None
    assert one.values[Tag.SSH_KEX] == "curve25519-sha256"
    assert one.values[Tag.SSH_MAC_SC] == "hmac-sha2-256"
    assert one.values[CLIENT_ID] == "SSH-2.0-paramiko_5.1.0"


def test_an_ssh_connection_missing_a_side_is_incomplete() -> None:
    [negotiation] = decode(ssh_connection(40001)[:2])
    assert negotiation.problem == "not captured: server KEXINIT"
    assert negotiation.values == {}
    client = {**SSH_LISTS, "kex": ("curve25519-sha256",)}
    server = {**SSH_LISTS, "kex": ("diffie-hellman-group14-sha256",)}
    packets = [
        packet(40003, False, b"SSH-2.0-OpenSSH_9.2\r\n" + kexinit(**server)),
        packet(40003, True, b"SSH-2.0-Go\r\n" + kexinit(**client)),
    ]
    [failed] = decode(packets)
    assert failed.values[Tag.SSH_KEX] == NONE_IN_COMMON


def test_a_connection_the_client_never_spoke_on_is_no_handshake() -> None:
    """The RTT probe connects and closes; sshd's greeting may still arrive."""
    greeting = packet(40005, False, b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10\r\n")
    negotiations = decode([greeting, *ssh_connection(40006)])
    assert [item.connection.own_port for item in negotiations] == [40006]
    assert summarize_handshakes(negotiations, None, "asyncssh", drops=0).incomplete == {}


def test_bytes_that_passed_the_filter_by_chance_are_no_handshake() -> None:
    assert decode([packet(40001, True, bytes.fromhex("9f3e21aa07c4") + bytes(40))]) == []
    # Encrypted bytes that look like a hello, after the connection's own: not read.
    lookalikes = [
        packet(40001, True, b"SSH-" + bytes(300), seq=9000),
        packet(40001, False, bytes.fromhex("00003c3a0714") + bytes(40), seq=9000),
    ]
    [ssh] = decode(ssh_connection(40001) + lookalikes)
    assert ssh.problem is None
    assert ssh.values[Tag.SSH_KEX] == "curve25519-sha256"
    late = packet(40002, False, server_hello(group=0x0017), seq=9000, port=443)
    [tls] = decode([*tls_connection(40002, server_hello()), late])
    assert tls.values[Tag.TLS_GROUP] == "x25519"


def tls_connection(
    own_port: int, *server: bytes, alpn: tuple[str, ...] | None = None
) -> list[HelloPacket]:
    packets = [packet(own_port, True, client_hello(alpn=alpn), port=443)]
    packets += [
        packet(own_port, False, data, seq=index, port=443) for index, data in enumerate(server)
    ]
    return packets


def test_tls13_connections_decode_resumption_and_hello_retry() -> None:
    [full, resumed, retried, psk_only] = decode(
        tls_connection(40001, server_hello())
        + tls_connection(40002, server_hello(psk=True))
        + [
            packet(40003, True, client_hello(), port=443),
            packet(40003, False, server_hello(retry=True, group=0x0017), port=443),
            packet(40003, True, client_hello(groups=(0x0017,)), seq=600, port=443),
            packet(40003, False, server_hello(group=0x0017), seq=200, port=443),
        ]
        + tls_connection(40004, server_hello(psk=True, group=None))
    )
    assert full.values == {
        Tag.TLS_VERSION: "TLSv1.3",
        Tag.TLS_CIPHER: "TLS_AES_256_GCM_SHA384",
        Tag.TLS_GROUP: "x25519",
        Tag.TLS_RESUMED: "false",
        Tag.TLS_HELLO_RETRY: "false",
    }
    assert full.alpn_offered == ()
    assert resumed.values[Tag.TLS_RESUMED] == "true"
    assert (retried.values[Tag.TLS_GROUP], retried.values[Tag.TLS_HELLO_RETRY]) == (
        "secp256r1",
        "true",
    )
    assert psk_only.values[Tag.TLS_GROUP] == NO_KEY_SHARE


def test_tls12_resumption_is_the_echoed_session_id() -> None:
    session = bytes(range(32))
    resumed_packets = [
        packet(40001, True, client_hello(session_id=session), port=443),
        packet(
            40001,
            False,
            server_hello(version=0x0303, cipher=0xC02F, group=None, session_id=session),
            port=443,
        ),
    ]
    [resumed] = decode(resumed_packets)
    assert (resumed.values[Tag.TLS_RESUMED], resumed.values[Tag.TLS_GROUP]) == (
        "true",
        NO_KEY_SHARE,
    )
    [full, unseen] = decode(
        tls_connection(
            40002,
            server_hello(version=0x0303, cipher=0xC02F, group=None, session_id=bytes([9] * 32))
            + server_key_exchange(0x001D),
        )
        + tls_connection(
            40003, server_hello(version=0x0303, cipher=0xC02F, group=None, session_id=b"")
        )
    )
    assert (full.values[Tag.TLS_RESUMED], full.values[Tag.TLS_GROUP]) == ("false", "x25519")
    assert unseen.values[Tag.TLS_GROUP] == TLS12_GROUP_UNSEEN


def test_a_tls_connection_without_its_server_hello_is_incomplete() -> None:
    [negotiation] = decode(tls_connection(40001, alpn=("http/1.1",)))
    assert negotiation.problem == "not captured: ServerHello"
    assert negotiation.alpn_offered == ("http/1.1",)


def test_the_summary_counts_each_value_and_names_what_varied() -> None:
    negotiations = decode(
        ssh_connection(40001)
        + ssh_connection(40002, "sntrup761x25519-sha512@openssh.com")
        + ssh_connection(40003)
        + ssh_connection(40004)[:2]
    )
    summary = summarize_handshakes(negotiations, None, "paramiko", drops=0)
    assert summary.connections == 3
    assert summary.incomplete == {"not captured: server KEXINIT": 1}
    assert summary.parameters[Tag.SSH_KEX].values == {
        "curve25519-sha256": 2,
        "sntrup761x25519-sha512@openssh.com": 1,
    }
    assert summary.varied == [Tag.SSH_KEX]
    assert list(summary.parameters)[:2] == [Tag.SSH_KEX, Tag.SSH_HOST_KEY]
    tags = handshake_tags(summary)
    assert tags[Tag.SSH_KEX] == "curve25519-sha256|sntrup761x25519-sha512@openssh.com"
    assert tags[Tag.SSH_CIPHER_CS] == "aes128-ctr"
    assert Tag.TLS_VERSION not in tags
    row = csv_fields(summary)
    assert set(row) == set(COLUMNS)
    assert (row["handshakes"], row["handshakes_incomplete"], row["handshakes_varied"]) == (
        3,
        1,
        "ssh_kex",
    )
    assert row[Tag.TLS_GROUP] is None


def tls_negotiations(*alpn: tuple[str, ...] | None) -> list[Negotiation]:
    packets: list[HelloPacket] = []
    for index, offered in enumerate(alpn):
        packets += tls_connection(40000 + index, server_hello(), alpn=offered)
    return decode(packets)


def test_alpn_comes_from_the_library_where_it_reports_it() -> None:
    offered = tls_negotiations(("http/1.1",), ("http/1.1",))
    reported = summarize_handshakes(offered, Counter({"http/1.1": 2}), "httpx", drops=0)
    alpn = reported.parameters[Tag.TLS_ALPN]
    assert (alpn.values, alpn.source) == ({"http/1.1": 2}, "library")
    silent = summarize_handshakes(offered, Counter({None: 2}), "httpx", drops=0)
    assert silent.parameters[Tag.TLS_ALPN].values == {NONE_SELECTED: 2}


def test_alpn_is_never_guessed() -> None:
    unreported = summarize_handshakes(tls_negotiations(("http/1.1",)), None, "requests", 0)
    alpn = unreported.parameters[Tag.TLS_ALPN]
    assert (alpn.values, alpn.source) == ({"not exposed by requests": 1}, "wire")
    not_offered = summarize_handshakes(
        tls_negotiations(None, None), Counter({None: 2}), "python-ssl", 0
    )
    alpn = not_offered.parameters[Tag.TLS_ALPN]
    assert (alpn.values, alpn.source) == ({NOT_OFFERED: 2}, "wire")
    assert list(not_offered.parameters) == [
        Tag.TLS_VERSION,
        Tag.TLS_CIPHER,
        Tag.TLS_GROUP,
        Tag.TLS_ALPN,
        Tag.TLS_RESUMED,
        Tag.TLS_HELLO_RETRY,
    ]


def test_without_a_capture_nothing_is_claimed() -> None:
    missing = unavailable("AF_PACKET socket not permitted")
    assert (missing.available, missing.connections, missing.parameters) == (False, 0, {})
    assert handshake_tags(missing) == {} == handshake_tags(None)
    assert set(csv_fields(missing).values()) == {None}
