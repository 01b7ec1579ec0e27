"""NETCONF over SSH (RFC 6241/6242) with the floor client: asyncssh and hand-written framing.

One operation is a ``<get>`` whose subtree filter asks the lab device for a synthetic
payload of ``reply_bytes`` bytes (``urn:transport-lab:payload``); an iteration runs one
operation per command of the run (so n has the same meaning as in the CLI modes; the
command text itself is not sent). Framing is RFC 6242 chunked framing (``:base:1.1``) when
both peers offer it, else end-of-message framing (``]]>]]>``); ``framing="1.0"`` makes the
client offer only ``:base:1.0``. A reply fails the iteration when it is not an
``<rpc-reply>`` with ``<data>``, carries an ``<rpc-error>`` or answers another message-id.
"""

import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import ClassVar, Literal, Protocol

import asyncssh

from bench_runner.modes.base import IterationError, Mode, Session, Target, Transport
from bench_runner.modes.ssh_exec import traced_connect
from bench_runner.roundtrips import SocketTrace

BASE_NS = "urn:ietf:params:xml:ns:netconf:base:1.0"
BASE_10 = "urn:ietf:params:netconf:base:1.0"
BASE_11 = "urn:ietf:params:netconf:base:1.1"
PAYLOAD_NS = "urn:transport-lab:payload"
END_OF_MESSAGE = b"]]>]]>"
Framing = Literal["1.0", "1.1"]
MESSAGE_ID = re.compile(rb'<rpc-reply[^>]*\smessage-id="([^"]*)"')
ERROR_MESSAGE = re.compile(rb"<error-message[^>]*>(.*?)</error-message>", re.DOTALL)


class Reader(Protocol):
    async def readuntil(self, separator: bytes) -> bytes: ...

    async def readexactly(self, n: int) -> bytes: ...


def client_hello(framing: Framing) -> bytes:
    bases = [BASE_10] if framing == "1.0" else [BASE_10, BASE_11]
    capabilities = "".join(f"<capability>{base}</capability>" for base in bases)
    return (f'<?xml version="1.0" encoding="UTF-8"?><hello xmlns="{BASE_NS}">'
            f"<capabilities>{capabilities}</capabilities></hello>").encode()


def get_payload_rpc(message_id: int, reply_bytes: int) -> bytes:
    return (f'<rpc message-id="{message_id}" xmlns="{BASE_NS}"><get><filter type="subtree">'
            f'<payload xmlns="{PAYLOAD_NS}"><size>{reply_bytes}</size></payload>'
            "</filter></get></rpc>").encode()


def frame(message: bytes, *, chunked: bool) -> bytes:
    """RFC 6242 section 4.2 chunked framing (one chunk), or end-of-message framing."""
    if chunked:
        return b"\n#%d\n" % len(message) + message + b"\n##\n"
    return message + END_OF_MESSAGE


async def read_message(reader: Reader, *, chunked: bool) -> bytes:
    """One framed message from ``reader`` (chunks joined, framing removed)."""
    if not chunked:
        return (await reader.readuntil(END_OF_MESSAGE))[:-len(END_OF_MESSAGE)]
    chunks: list[bytes] = []
    while True:
        if await reader.readexactly(2) != b"\n#":
            raise IterationError("netconf: bad chunk header")
        header = (await reader.readuntil(b"\n"))[:-1]
        if header == b"#":
            return b"".join(chunks)
        if not header.isdigit() or header.startswith(b"0") or len(header) > 10:
            raise IterationError(f"netconf: bad chunk size {header[:20]!r}")
        chunks.append(await reader.readexactly(int(header)))


def check_reply(reply: bytes, message_id: int) -> str:
    """The reply as text, or IterationError naming what is wrong with it."""
    match = MESSAGE_ID.search(reply[:512])
    if match is None:
        raise IterationError(f"netconf: not an rpc-reply: {reply[:80]!r}")
    if match.group(1) != str(message_id).encode():
        raise IterationError(f"netconf: reply to message-id {match.group(1)!r}, "
                             f"expected {message_id}")
    if b"<rpc-error" in reply:
        error = ERROR_MESSAGE.search(reply)
        detail = error.group(1).decode(errors="replace").strip() if error else "rpc-error"
        raise IterationError(f"netconf: rpc-error: {detail}")
    if b"<data" not in reply:
        raise IterationError("netconf: rpc-reply without data")
    return reply.decode("utf-8", errors="replace")


class NetconfChannel:
    """An open NETCONF session on an SSH channel (subsystem ``netconf``)."""

    def __init__(self, process: asyncssh.SSHClientProcess[bytes], chunked: bool) -> None:
        self._process = process
        self.chunked = chunked
        self._next_id = 1

    @classmethod
    async def open(cls, conn: asyncssh.SSHClientConnection,
                   framing: Framing) -> "NetconfChannel":
        process = await conn.create_process(subsystem="netconf", encoding=None)
        process.stdin.write(frame(client_hello(framing), chunked=False))
        server_hello = await read_message(process.stdout, chunked=False)
        if b"<hello" not in server_hello:
            raise IterationError(f"netconf: no server hello: {server_hello[:80]!r}")
        return cls(process, chunked=framing == "1.1" and BASE_11.encode() in server_hello)

    async def get_payloads(self, count: int, reply_bytes: int, *, pipelined: bool) -> list[str]:
        """``count`` payload gets: each after the previous reply, or all sent at once."""
        ids = list(range(self._next_id, self._next_id + count))
        self._next_id += count
        if pipelined:
            self._process.stdin.write(b"".join(
                frame(get_payload_rpc(message_id, reply_bytes), chunked=self.chunked)
                for message_id in ids
            ))
            return [check_reply(await read_message(self._process.stdout, chunked=self.chunked),
                                message_id) for message_id in ids]
        outputs = []
        for message_id in ids:
            self._process.stdin.write(
                frame(get_payload_rpc(message_id, reply_bytes), chunked=self.chunked))
            outputs.append(check_reply(
                await read_message(self._process.stdout, chunked=self.chunked), message_id))
        return outputs

    def close(self) -> None:
        """``<close-session/>`` without waiting for its reply, then close the channel."""
        message = f'<rpc message-id="{self._next_id}" xmlns="{BASE_NS}"><close-session/></rpc>'
        self._process.stdin.write(frame(message.encode(), chunked=self.chunked))
        self._process.close()


class NetconfMode(Mode):
    """Base of the NETCONF modes: framing and reply size are the mode's parameters."""

    transport = Transport.NETCONF
    client = "asyncssh"
    pipelined: ClassVar[bool] = False

    def __init__(self, framing: Framing = "1.1", reply_bytes: int = 1024) -> None:
        self.framing: Framing = framing
        self.reply_bytes = reply_bytes

    def with_parameters(self, framing: Framing, reply_bytes: int) -> "NetconfMode":
        return type(self)(framing, reply_bytes)

    def parameters(self) -> dict[str, str | int]:
        return {"framing": self.framing, "reply_bytes": self.reply_bytes}


class _FreshNetconfSession:
    def __init__(self, target: Target, mode: NetconfMode) -> None:
        self._target = target
        self._mode = mode
        self.trace = SocketTrace()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        async with traced_connect(self._target, self.trace, self._target.netconf_port) as conn:
            channel = await NetconfChannel.open(conn, self._mode.framing)
            outputs = await channel.get_payloads(len(commands), self._mode.reply_bytes,
                                                 pipelined=False)
            channel.close()
        return outputs


class _KeptNetconfSession:
    def __init__(self, channel: NetconfChannel, mode: NetconfMode, trace: SocketTrace) -> None:
        self._channel = channel
        self._mode = mode
        self.trace = trace

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await self._channel.get_payloads(len(commands), self._mode.reply_bytes,
                                                pipelined=self._mode.pipelined)


@asynccontextmanager
async def _kept_netconf(target: Target, mode: NetconfMode) -> AsyncIterator[Session]:
    trace = SocketTrace()
    async with traced_connect(target, trace, target.netconf_port) as conn:
        channel = await NetconfChannel.open(conn, mode.framing)
        try:
            yield _KeptNetconfSession(channel, mode, trace)
        finally:
            channel.close()


class NetconfFreshSession(NetconfMode):
    """Per iteration a new SSH connection to port 830, the netconf subsystem, the hello
    exchange, one ``<get>`` per command, ``<close-session>`` (not waited for).

    Lower bound per iteration, 4 + n round trips: TCP, key exchange, password auth with
    the channel open pipelined (RFC 4252 section 5.1), the subsystem request with both
    hellos (the client sends its hello right behind the request, but must see the server's
    to know the framing), then each ``<get>`` (n).
    """

    name = "netconf/fresh-session"
    description = ("asyncssh + hand-framed NETCONF; per iteration a new SSH connection, "
                   "netconf subsystem, hello exchange, one <get> per command, close-session")

    def min_round_trips(self, n_commands: int) -> int:
        return 4 + n_commands

    def expected_round_trips(self, n_commands: int) -> int:
        return 10 + n_commands

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        yield _FreshNetconfSession(target, self)


class NetconfReuseSession(NetconfMode):
    """A NETCONF session opened before the warm-up and kept; one ``<get>`` per command,
    each sent after the previous reply. Lower bound n round trips per iteration."""

    name = "netconf/reuse-session"
    description = ("asyncssh + hand-framed NETCONF; one session kept; one <get> per command, "
                   "each after the previous reply")

    def min_round_trips(self, n_commands: int) -> int:
        return n_commands

    def expected_round_trips(self, n_commands: int) -> int:
        return n_commands

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _kept_netconf(target, self) as session:
            yield session


class NetconfBatchRpc(NetconfMode):
    """A NETCONF session kept; the n ``<get>`` RPCs of an iteration are pipelined (all
    written at once, RFC 6241 section 4.1 lets a server answer them in order). Lower bound
    1 round trip per iteration."""

    name = "netconf/batch-rpc"
    description = ("asyncssh + hand-framed NETCONF; one session kept; the <get> of every "
                   "command written at once (pipelined), replies read in order")
    pipelined = True

    def min_round_trips(self, n_commands: int) -> int:
        return 1

    def expected_round_trips(self, n_commands: int) -> int:
        return 1

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _kept_netconf(target, self) as session:
            yield session
