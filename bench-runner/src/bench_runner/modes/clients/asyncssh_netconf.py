"""NETCONF over SSH (RFC 6241/6242) with the floor client: asyncssh carrying the messages and
framing of bench_runner.protocols.netconf, written by hand (no NETCONF library).

One operation is a ``<get>`` whose subtree filter asks the lab device for a synthetic
payload of ``reply_bytes`` bytes (``urn:transport-lab:payload``), or (``netconf/get-config``)
a ``<get-config>`` of the running configuration of the command's interface, the read the
RESTCONF and gNMI modes make; an iteration runs one operation per command of the run (the
command text itself is not sent). Framing is RFC
6242 chunked framing (``:base:1.1``) when both peers offer it, else end-of-message framing
(``]]>]]>``); ``framing="1.0"`` makes the client offer only ``:base:1.0``. A reply fails the
iteration when it is not an ``<rpc-reply>`` with ``<data>``, carries an ``<rpc-error>`` or
answers another message-id.
"""

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial

import asyncssh

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.asyncssh_connect import traced_connect
from bench_runner.modes.clients.native_interfaces import (
    INTERFACES_FILTER,
    Interface,
    check_get_config,
    get_config_rpc,
    interface_for,
    interfaces_from_xml,
)
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer
from bench_runner.protocols.netconf.framing import Decoder, encode
from bench_runner.protocols.netconf.messages import (
    Framing,
    check_reply,
    client_hello,
    close_session_rpc,
    commit_rpc,
    edit_description_rpc,
    edit_text,
    get_description_rpc,
    get_payload_rpc,
    negotiate_chunked,
    original_description,
)
from bench_runner.roundtrips import SocketTrace
from bench_runner.validation import IterationError

READ_SIZE = 65536
"""Bytes asked of the channel per read: a 1 MB reply takes 16 reads, not one per packet."""


class NetconfChannel:
    """An open NETCONF session on an SSH channel (subsystem ``netconf``): the I/O around
    bench_runner.protocols.netconf. Every request is one write (a pipelined batch too)."""

    def __init__(self, process: asyncssh.SSHClientProcess[bytes], decoder: Decoder) -> None:
        self._process = process
        self._decoder = decoder
        self._next_id = 1

    @classmethod
    async def open(cls, conn: asyncssh.SSHClientConnection, framing: Framing) -> "NetconfChannel":
        process = await conn.create_process(subsystem="netconf", encoding=None)
        process.stdin.write(encode(client_hello(framing), chunked=False))
        channel = cls(process, Decoder())
        if negotiate_chunked(await channel._read_message(), framing):
            channel._decoder.start_chunked()
        return channel

    @property
    def chunked(self) -> bool:
        return self._decoder.chunked

    async def _read_message(self) -> bytes:
        while (message := self._decoder.next_message()) is None:
            data = await self._process.stdout.read(READ_SIZE)
            if not data:
                raise IterationError("netconf: the server closed the session")
            self._decoder.feed(data)
        return message

    async def get_payloads(self, count: int, reply_bytes: int, *, pipelined: bool) -> list[str]:
        """``count`` payload gets: each after the previous reply, or all sent at once."""
        ids = list(range(self._next_id, self._next_id + count))
        self._next_id += count
        if pipelined:
            self._process.stdin.write(
                b"".join(
                    encode(get_payload_rpc(message_id, reply_bytes), chunked=self.chunked)
                    for message_id in ids
                )
            )
            return [check_reply(await self._read_message(), message_id) for message_id in ids]
        outputs = []
        for message_id in ids:
            self._process.stdin.write(
                encode(get_payload_rpc(message_id, reply_bytes), chunked=self.chunked)
            )
            outputs.append(check_reply(await self._read_message(), message_id))
        return outputs

    async def call(self, build: Callable[[int], bytes], expect: bytes) -> str:
        """One RPC (``build(message_id)``), waiting for and checking its reply."""
        message_id = self._next_id
        self._next_id += 1
        self._process.stdin.write(encode(build(message_id), chunked=self.chunked))
        return check_reply(await self._read_message(), message_id, expect)

    def close(self) -> None:
        """``<close-session/>`` without waiting for its reply, then close the channel."""
        self._process.stdin.write(encode(close_session_rpc(self._next_id), chunked=self.chunked))
        self._process.close()


class _FreshSession:
    def __init__(self, target: Target, framing: Framing, reply_bytes: int) -> None:
        self._target = target
        self._framing: Framing = framing
        self._reply_bytes = reply_bytes
        self.trace = SocketTrace()
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        phases = self.phases
        async with traced_connect(
            self._target, self.trace, self._target.netconf_port, phases=phases
        ) as conn:
            with phases.measure("hello"):
                channel = await NetconfChannel.open(conn, self._framing)
            with phases.measure("rpcs"):
                outputs = await channel.get_payloads(
                    len(commands), self._reply_bytes, pipelined=False
                )
            with phases.measure("close"):  # plus the connection's close, timed by traced_connect
                channel.close()
        return outputs


class _KeptSession:
    def __init__(
        self, channel: NetconfChannel, trace: SocketTrace, reply_bytes: int, *, pipelined: bool
    ) -> None:
        self._channel = channel
        self._reply_bytes = reply_bytes
        self._pipelined = pipelined
        self.trace = trace
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        with self.phases.measure("rpcs"):
            return await self._channel.get_payloads(
                len(commands), self._reply_bytes, pipelined=self._pipelined
            )


class _EditCommitSession:
    def __init__(self, channel: NetconfChannel, trace: SocketTrace) -> None:
        self._channel = channel
        self.trace = trace
        self.phases = PhaseTimer()
        self._edits = 0

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        with self.phases.measure("rpcs"):
            outputs = []
            for _ in commands:
                self._edits += 1
                edit = partial(edit_description_rpc, edit_text(self._edits))
                outputs.append(await self._channel.call(edit, b"<ok"))
            outputs.append(await self._channel.call(commit_rpc, b"<ok"))
            return ["".join(outputs)]  # one combined output: the commit is not a command


class _GetConfigSession:
    def __init__(
        self, channel: NetconfChannel, trace: SocketTrace, interfaces: Sequence[Interface]
    ) -> None:
        self._channel = channel
        self._interfaces = interfaces
        self.trace = trace
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        with self.phases.measure("rpcs"):
            outputs = []
            for command in range(1, len(commands) + 1):
                interface = interface_for(self._interfaces, command)
                read = partial(get_config_rpc, interface.subtree_filter())
                outputs.append(
                    check_get_config(interface, await self._channel.call(read, b"<data"))
                )
            return outputs


@asynccontextmanager
async def fresh(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Per iteration a new connection, the subsystem and hellos, the gets, close-session."""
    values = mode.netconf()
    yield _FreshSession(target, values.framing, values.reply_bytes)


@asynccontextmanager
async def kept(mode: Mode, target: Target, *, pipelined: bool) -> AsyncIterator[Session]:
    """One session opened before the warm-up; the gets each after the previous reply, or
    (``pipelined``) all written at once."""
    values = mode.netconf()
    trace = SocketTrace()
    async with traced_connect(target, trace, target.netconf_port) as conn:
        channel = await NetconfChannel.open(conn, values.framing)
        try:
            yield _KeptSession(channel, trace, values.reply_bytes, pipelined=pipelined)
        finally:
            channel.close()


@asynccontextmanager
async def edit_commit(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One session kept; Loopback0's running description read before the warm-up and
    restored (edit-config + commit) when the mode ends, neither measured."""
    trace = SocketTrace()
    async with traced_connect(target, trace, target.netconf_port) as conn:
        channel = await NetconfChannel.open(conn, mode.netconf().framing)
        original = original_description(await channel.call(get_description_rpc, b"<data"))
        try:
            yield _EditCommitSession(channel, trace)
        finally:
            await channel.call(partial(edit_description_rpc, original), b"<ok")
            await channel.call(commit_rpc, b"<ok")
            channel.close()


@asynccontextmanager
async def get_config(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One session kept; the device's interfaces read before the warm-up (not measured);
    per command a ``<get-config>`` of its interface, each after the previous reply."""
    trace = SocketTrace()
    async with traced_connect(target, trace, target.netconf_port) as conn:
        channel = await NetconfChannel.open(conn, mode.netconf().framing)
        try:
            listed = await channel.call(partial(get_config_rpc, INTERFACES_FILTER), b"<data")
            yield _GetConfigSession(channel, trace, list(interfaces_from_xml(listed)))
        finally:
            channel.close()
