"""TLS hellos: what the ServerHello decides and the ClientHello offered, on hand-made
records for the rules; recorded handshakes of real clients in test_handshakes_recorded.py."""

import pytest

from bench_runner.protocols import tls_hello
from handshake_bytes import client_hello, server_hello, server_key_exchange


def only(data: bytes) -> tls_hello.Message:
    [message] = tls_hello.handshake_messages(data)
    return message


def test_a_tls13_server_hello_names_version_cipher_and_group() -> None:
    hello = tls_hello.parse_server_hello(only(server_hello(group=0x11EC)))
    assert (hello.version, hello.tls13, hello.resumed_psk, hello.hello_retry) == (
        0x0304,
        True,
        False,
        False,
    )
    assert tls_hello.cipher_suite_name(hello.cipher_suite) == "TLS_AES_256_GCM_SHA384"
    assert hello.group is not None
    assert tls_hello.group_name(hello.group) == "X25519MLKEM768"
    assert tls_hello.version_name(hello.version) == "TLSv1.3"


def test_resumption_and_hello_retry_are_told() -> None:
    resumed = tls_hello.parse_server_hello(only(server_hello(psk=True)))
    assert resumed.resumed_psk
    retry = tls_hello.parse_server_hello(only(server_hello(retry=True, group=0x0017)))
    assert retry.hello_retry
    assert retry.group == 0x0017
    without_share = tls_hello.parse_server_hello(only(server_hello(psk=True, group=None)))
    assert without_share.group is None


def test_a_client_hello_says_what_was_offered() -> None:
    offered = tls_hello.parse_client_hello(only(client_hello(alpn=("h2", "http/1.1"), psk=True)))
    assert offered.alpn == ("h2", "http/1.1")
    assert offered.versions == (0x0304, 0x0303)
    assert offered.groups == (0x001D, 0x0017)
    assert offered.key_shares == (0x001D,)
    assert offered.offers_session
    assert offered.complete
    plain = tls_hello.parse_client_hello(only(client_hello()))
    assert plain.alpn == ()
    assert plain.offers_session is False


def test_a_client_hello_cut_short_leaves_the_rest_unknown() -> None:
    data = client_hello(alpn=("http/1.1",))
    cut = tls_hello.parse_client_hello(only(data[:-20]))
    assert not cut.complete
    assert cut.alpn is None  # cut off: unknown, not "none offered"
    assert cut.groups == (0x001D, 0x0017)


def test_tls12_takes_its_fields_from_the_server_hello_and_key_exchange() -> None:
    flight = server_hello(version=0x0303, cipher=0xC02F, group=None) + server_key_exchange(0x0017)
    hello, key_exchange = tls_hello.handshake_messages(flight)
    parsed = tls_hello.parse_server_hello(hello)
    assert tls_hello.version_name(parsed.version) == "TLSv1.2"
    assert not parsed.tls13
    assert (
        tls_hello.cipher_suite_name(parsed.cipher_suite) == "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
    )
    assert tls_hello.server_key_exchange_group(key_exchange) == 0x0017


def test_unknown_codes_are_written_as_hex() -> None:
    assert tls_hello.group_name(0x4242) == "0x4242"
    assert tls_hello.cipher_suite_name(0x0A0A) == "0x0a0a"


def test_a_hello_split_over_two_records_is_joined() -> None:
    data = server_hello()
    message = data[5:]
    split = (
        b"\x16\x03\x03"
        + (10).to_bytes(2, "big")
        + message[:10]
        + b"\x16\x03\x03"
        + (len(message) - 10).to_bytes(2, "big")
        + message[10:]
    )
    assert tls_hello.parse_server_hello(only(split)) == tls_hello.parse_server_hello(only(data))


def test_records_other_than_handshakes_end_the_messages() -> None:
    change_cipher_spec = b"\x14\x03\x03\x00\x01\x01"
    messages = tls_hello.handshake_messages(server_hello() + change_cipher_spec + b"\x17" * 40)
    assert [message.kind for message in messages] == [tls_hello.SERVER_HELLO]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x17\x03\x03\x00\x10" + bytes(16), "no TLS handshake record"),
    ],
)
def test_bytes_that_are_no_handshake_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(tls_hello.TlsFormatError, match=message):
        tls_hello.handshake_messages(data)


def test_a_server_hello_cut_short_is_refused() -> None:
    data = server_hello()
    with pytest.raises(tls_hello.TlsFormatError, match="cut short"):
        tls_hello.parse_server_hello(only(data[:30]))
    with pytest.raises(tls_hello.TlsFormatError, match="not a ServerHello"):
        tls_hello.parse_server_hello(only(client_hello()))
