"""The floor client's NETCONF channel (the I/O around bench_runner.protocols.netconf) and the
NETCONF modes' parameters. The channel is driven through a fake SSH process: what it writes,
in how many writes (the wire's round trips depend on it), and how it reads the replies."""

import asyncio
from typing import Any, cast

import pytest

from bench_runner.modes import MODES_BY_NAME, Target
from bench_runner.modes.clients.asyncssh_netconf import NetconfChannel
from bench_runner.protocols.netconf.framing import encode_chunked, encode_end_of_message
from bench_runner.protocols.netconf.messages import (
    Framing,
    client_hello,
    close_session_rpc,
    commit_rpc,
    get_payload_rpc,
)
from bench_runner.validation import IterationError

TARGET = Target(host="device", ssh_port=22, https_port=443, username="u", password="p")
SERVER_HELLO = (
    b'<hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities>'
    b"<capability>urn:ietf:params:netconf:base:1.0</capability>"
    b"<capability>urn:ietf:params:netconf:base:1.1</capability></capabilities>"
    b"<session-id>4</session-id></hello>"
)


class FakeStdout:
    """What the server sends, handed out in reads of at most 7 bytes."""

    def __init__(self, incoming: bytes) -> None:
        self.incoming = incoming

    async def read(self, n: int) -> bytes:
        data, self.incoming = self.incoming[: min(n, 7)], self.incoming[min(n, 7) :]
        return data


class FakeStdin:
    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)


class FakeProcess:
    def __init__(self, incoming: bytes) -> None:
        self.stdin = FakeStdin()
        self.stdout = FakeStdout(incoming)
        self.closed = False

    def close(self) -> None:
        self.closed = True


class FakeConnection:
    def __init__(self, incoming: bytes) -> None:
        self.process = FakeProcess(incoming)

    async def create_process(self, *, subsystem: str, encoding: None) -> FakeProcess:
        assert (subsystem, encoding) == ("netconf", None)
        return self.process


def reply(message_id: int, body: str = "<data><payload>xyz</payload></data>") -> bytes:
    return f'<rpc-reply message-id="{message_id}">{body}</rpc-reply>'.encode()


def open_channel(framing: Framing, after_hello: bytes) -> tuple[NetconfChannel, FakeProcess]:
    connection = FakeConnection(encode_end_of_message(SERVER_HELLO) + after_hello)
    channel = asyncio.run(NetconfChannel.open(cast(Any, connection), framing))
    return channel, connection.process


def test_pipelined_gets_are_one_write_and_replies_are_read_in_order() -> None:
    replies = b"".join(encode_chunked(reply(i), max_chunk_size=9) for i in (1, 2, 3))
    channel, process = open_channel("1.1", replies)
    assert channel.chunked
    assert process.stdin.writes == [encode_end_of_message(client_hello("1.1"))]
    outputs = asyncio.run(channel.get_payloads(3, 1024, pipelined=True))
    assert outputs == [reply(i).decode() for i in (1, 2, 3)]
    assert process.stdin.writes[1:] == [
        b"".join(encode_chunked(get_payload_rpc(i, 1024)) for i in (1, 2, 3))
    ]


def test_sequential_gets_and_calls_are_one_write_each() -> None:
    incoming = b"".join(encode_end_of_message(reply(i)) for i in (1, 2))
    incoming += encode_end_of_message(reply(3, "<ok/>"))
    channel, process = open_channel("1.0", incoming)
    assert not channel.chunked
    assert asyncio.run(channel.get_payloads(2, 10, pipelined=False)) == [
        reply(1).decode(),
        reply(2).decode(),
    ]
    assert asyncio.run(channel.call(commit_rpc, b"<ok")) == reply(3, "<ok/>").decode()
    channel.close()
    assert process.stdin.writes[1:] == [
        encode_end_of_message(get_payload_rpc(1, 10)),
        encode_end_of_message(get_payload_rpc(2, 10)),
        encode_end_of_message(commit_rpc(3)),
        encode_end_of_message(close_session_rpc(4)),
    ]
    assert process.closed


def test_a_server_without_base_11_keeps_end_of_message_framing() -> None:
    connection = FakeConnection(
        encode_end_of_message(SERVER_HELLO.replace(b"base:1.1", b"base:1.0"))
    )
    channel = asyncio.run(NetconfChannel.open(cast(Any, connection), "1.1"))
    assert not channel.chunked


@pytest.mark.parametrize(
    ("after_hello", "problem"),
    [
        (b"", "netconf: the server closed the session"),
        (encode_chunked(reply(1))[:20], "netconf: the server closed the session"),
        (encode_chunked(reply(2)), "netconf: reply to message-id b'2', expected 1"),
        (b"\n#0\n", "netconf: bad chunk size b'0'"),
    ],
)
def test_a_bad_session_fails_the_iteration(after_hello: bytes, problem: str) -> None:
    channel, _ = open_channel("1.1", after_hello)
    with pytest.raises(IterationError) as failure:
        asyncio.run(channel.get_payloads(1, 1024, pipelined=False))
    assert str(failure.value).startswith(problem)


def test_no_server_hello_fails() -> None:
    connection = FakeConnection(encode_end_of_message(reply(1)))
    with pytest.raises(IterationError, match="no server hello"):
        asyncio.run(NetconfChannel.open(cast(Any, connection), "1.1"))


def test_netconf_parameters_and_port() -> None:
    mode = MODES_BY_NAME["netconf/batch-rpc"]
    configured = mode.with_netconf("1.0", 1 << 20)
    assert configured.parameters() == {"framing": "1.0", "reply_bytes": 1048576}
    assert configured.name == "netconf/batch-rpc"
    assert configured.port(TARGET) == 830
    assert MODES_BY_NAME["ssh/reuse-conn"].parameters() is None
