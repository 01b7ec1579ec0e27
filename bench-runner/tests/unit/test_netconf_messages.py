"""The NETCONF messages the lab sends, byte for byte, and the checks of hellos and replies."""

import pytest

from bench_runner.protocols.netconf.errors import NetconfError
from bench_runner.protocols.netconf.messages import (
    check_reply,
    client_hello,
    close_session_rpc,
    commit_rpc,
    description_config,
    edit_description_rpc,
    get_description_rpc,
    get_payload_rpc,
    negotiate_chunked,
    original_description,
)

NS = 'xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"'
LOOPBACK = (
    '<native xmlns="http://cisco.com/ns/yang/Cisco-IOS-XE-native"><interface><Loopback>'
    "<name>0</name>{}</Loopback></interface></native>"
)


def test_client_hellos_offer_the_bases_of_their_framing() -> None:
    head = f'<?xml version="1.0" encoding="UTF-8"?><hello {NS}><capabilities>'
    base10 = "<capability>urn:ietf:params:netconf:base:1.0</capability>"
    base11 = "<capability>urn:ietf:params:netconf:base:1.1</capability>"
    tail = "</capabilities></hello>"
    assert client_hello("1.0") == (head + base10 + tail).encode()
    assert client_hello("1.1") == (head + base10 + base11 + tail).encode()


def test_rpcs_are_the_lab_bytes() -> None:
    assert (
        get_payload_rpc(7, 10240)
        == (
            f'<rpc message-id="7" {NS}><get><filter type="subtree">'
            '<payload xmlns="urn:transport-lab:payload"><size>10240</size></payload>'
            "</filter></get></rpc>"
        ).encode()
    )
    assert (
        get_description_rpc(1)
        == (
            f'<rpc message-id="1" {NS}><get-config><source><running/></source>'
            f'<filter type="subtree">{LOOPBACK.format("<description/>")}</filter>'
            "</get-config></rpc>"
        ).encode()
    )
    assert (
        edit_description_rpc("a<b", 2)
        == (
            f'<rpc message-id="2" {NS}><edit-config><target><candidate/></target>'
            f"<default-operation>merge</default-operation><config {NS}>"
            f"{LOOPBACK.format('<description>a&lt;b</description>')}</config></edit-config></rpc>"
        ).encode()
    )
    assert commit_rpc(3) == f'<rpc message-id="3" {NS}><commit/></rpc>'.encode()
    assert close_session_rpc(4) == f'<rpc message-id="4" {NS}><close-session/></rpc>'.encode()


def test_a_missing_description_is_removed_and_a_present_one_read_back() -> None:
    removal = (
        '<description xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" nc:operation="remove"/>'
    )
    assert description_config(None) == f"<config {NS}>{LOOPBACK.format(removal)}</config>"
    reply = (
        f'<rpc-reply message-id="1"><data>{LOOPBACK.format("<description>x &amp; y</description>")}'
    )
    assert original_description(reply + "</data></rpc-reply>") == "x & y"
    assert original_description('<rpc-reply message-id="1"><data/></rpc-reply>') is None


SERVER_HELLO = (
    b"<hello><capabilities><capability>urn:ietf:params:netconf:base:1.0</capability>"
    b"<capability>urn:ietf:params:netconf:base:1.1</capability></capabilities></hello>"
)


def test_chunked_framing_only_when_both_offer_base_11() -> None:
    assert negotiate_chunked(SERVER_HELLO, "1.1")
    assert not negotiate_chunked(SERVER_HELLO, "1.0")
    base10_only = SERVER_HELLO.replace(b"<capability>urn:ietf:params:netconf:base:1.1", b"<x>")
    assert not negotiate_chunked(base10_only, "1.1")
    with pytest.raises(NetconfError, match="no server hello"):
        negotiate_chunked(b'<rpc-reply message-id="1"><ok/></rpc-reply>', "1.1")


OK_DATA = b'<rpc-reply message-id="3" ' + NS.encode() + b"><data/></rpc-reply>"


def test_a_good_reply_is_returned_as_text() -> None:
    assert check_reply(OK_DATA, 3) == OK_DATA.decode()
    ok = b'<rpc-reply message-id="9"><ok/></rpc-reply>'
    assert check_reply(ok, 9, b"<ok") == ok.decode()


@pytest.mark.parametrize(
    ("reply", "expect", "problem"),
    [
        (OK_DATA, b"<data", "netconf: reply to message-id b'3', expected 4"),
        (b"<hello/>", b"<data", "netconf: not an rpc-reply: b'<hello/>'"),
        (b" " * 512 + OK_DATA, b"<data", "netconf: not an rpc-reply"),
        (
            b'<rpc-reply message-id="4"><rpc-error><error-tag>invalid-value</error-tag>'
            b"<error-message xml:lang='en'> payload size must be 1..67108864 bytes"
            b"</error-message></rpc-error></rpc-reply>",
            b"<data",
            "netconf: rpc-error: payload size must be 1..67108864 bytes",
        ),
        (
            b'<rpc-reply message-id="4"><rpc-error/></rpc-reply>',
            b"<ok",
            "netconf: rpc-error: rpc-error",
        ),
        (OK_DATA.replace(b'"3"', b'"4"'), b"<ok", "netconf: rpc-reply without <ok>"),
    ],
)
def test_a_bad_reply_says_what_is_wrong(reply: bytes, expect: bytes, problem: str) -> None:
    with pytest.raises(NetconfError) as failure:
        check_reply(reply, 4, expect)
    assert str(failure.value).startswith(problem)
