import asyncio

import pytest

from bench_runner.modes import MODES_BY_NAME, NetconfMode, Target
from bench_runner.modes.netconf import (
    check_reply,
    client_hello,
    frame,
    get_payload_rpc,
    read_message,
)
from bench_runner.validation import IterationError

TARGET = Target(host="device", ssh_port=22, https_port=443, username="u", password="p")


def read(data: bytes, *, chunked: bool, count: int = 1) -> list[bytes]:
    async def scenario() -> list[bytes]:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        return [await read_message(reader, chunked=chunked) for _ in range(count)]

    return asyncio.run(scenario())


def test_end_of_message_framing_round_trip() -> None:
    framed = frame(b"<rpc/>", chunked=False) + frame(b"<hello/>", chunked=False)
    assert framed == b"<rpc/>]]>]]><hello/>]]>]]>"
    assert read(framed, chunked=False, count=2) == [b"<rpc/>", b"<hello/>"]


def test_chunked_framing_round_trip_and_several_chunks() -> None:
    assert frame(b"<rpc/>", chunked=True) == b"\n#6\n<rpc/>\n##\n"
    # RFC 6242 section 4.2 example shape: one message in two chunks, then another.
    data = b"\n#4\n<rpc\n#8\n message\n##\n" + frame(b"<x/>", chunked=True)
    assert read(data, chunked=True, count=2) == [b"<rpc message", b"<x/>"]


@pytest.mark.parametrize("bad", [b"\n#0\nx\n##\n", b"\n#abc\nx\n##\n", b"#4\n<rpc\n##\n"])
def test_bad_chunks_are_rejected(bad: bytes) -> None:
    with pytest.raises(IterationError, match="chunk"):
        read(bad, chunked=True)


def test_hello_and_rpc_text() -> None:
    assert b"base:1.1" in client_hello("1.1")
    assert b"base:1.1" not in client_hello("1.0")
    rpc = get_payload_rpc(7, 10240)
    assert b'message-id="7"' in rpc
    assert b"<size>10240</size>" in rpc


def test_check_reply() -> None:
    ok = (
        b'<rpc-reply message-id="3" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">'
        b"<data/></rpc-reply>"
    )
    assert check_reply(ok, 3).startswith("<rpc-reply")
    with pytest.raises(IterationError, match="expected 4"):
        check_reply(ok, 4)
    error = (
        b'<rpc-reply message-id="3"><rpc-error><error-tag>invalid-value</error-tag>'
        b"<error-message>payload size must be 1..67108864 bytes</error-message>"
        b"</rpc-error></rpc-reply>"
    )
    with pytest.raises(IterationError, match="payload size must be"):
        check_reply(error, 3)
    with pytest.raises(IterationError, match="not an rpc-reply"):
        check_reply(b"<hello/>", 3)


def test_netconf_parameters_and_port() -> None:
    mode = MODES_BY_NAME["netconf/batch-rpc"]
    assert isinstance(mode, NetconfMode)
    configured = mode.with_parameters("1.0", 1 << 20)
    assert configured.parameters() == {"framing": "1.0", "reply_bytes": 1048576}
    assert configured.name == "netconf/batch-rpc"
    assert configured.port(TARGET) == 830
    assert MODES_BY_NAME["ssh/reuse-conn"].parameters() is None
