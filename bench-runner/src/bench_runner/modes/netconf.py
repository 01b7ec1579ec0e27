"""NETCONF over SSH (RFC 6241/6242) with the floor client: asyncssh carrying the messages and
framing of bench_runner.protocols.netconf.

One operation is a ``<get>`` whose subtree filter asks the lab device for a synthetic
payload of ``reply_bytes`` bytes (``urn:transport-lab:payload``); an iteration runs one
operation per command of the run (so n has the same meaning as in the CLI modes; the
command text itself is not sent). Framing is RFC 6242 chunked framing (``:base:1.1``) when
both peers offer it, else end-of-message framing (``]]>]]>``); ``framing="1.0"`` makes the
client offer only ``:base:1.0``. A reply fails the iteration when it is not an
``<rpc-reply>`` with ``<data>``, carries an ``<rpc-error>`` or answers another message-id.
"""

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import ClassVar

import asyncssh

from bench_runner.modes.base import (
    ONE_PER_COMMAND,
    Mode,
    RoundTripBound,
    Session,
    Target,
    Transport,
)
from bench_runner.modes.ssh_exec import traced_connect
from bench_runner.phases import PhaseTimer
from bench_runner.protocols.netconf.framing import Decoder, encode
from bench_runner.protocols.netconf.messages import Framing as Framing  # modes re-exports it
from bench_runner.protocols.netconf.messages import (
    check_reply,
    client_hello,
    close_session_rpc,
    commit_rpc,
    edit_description_rpc,
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
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        phases = self.phases
        async with traced_connect(
            self._target, self.trace, self._target.netconf_port, phases=phases
        ) as conn:
            with phases.measure("hello"):
                channel = await NetconfChannel.open(conn, self._mode.framing)
            with phases.measure("rpcs"):
                outputs = await channel.get_payloads(
                    len(commands), self._mode.reply_bytes, pipelined=False
                )
            with phases.measure("close"):  # plus the connection's close, timed by traced_connect
                channel.close()
        return outputs


class _KeptNetconfSession:
    def __init__(self, channel: NetconfChannel, mode: NetconfMode, trace: SocketTrace) -> None:
        self._channel = channel
        self._mode = mode
        self.trace = trace
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        with self.phases.measure("rpcs"):
            return await self._channel.get_payloads(
                len(commands), self._mode.reply_bytes, pipelined=self._mode.pipelined
            )


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
    description = (
        "asyncssh + hand-framed NETCONF; per iteration a new SSH connection, "
        "netconf subsystem, hello exchange, one <get> per command, close-session"
    )
    min_bound = RoundTripBound(per_command=1, fixed=4)
    expected_bound = RoundTripBound(per_command=1, fixed=10)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        yield _FreshNetconfSession(target, self)


class NetconfReuseSession(NetconfMode):
    """A NETCONF session opened before the warm-up and kept; one ``<get>`` per command,
    each sent after the previous reply. Lower bound n round trips per iteration."""

    name = "netconf/reuse-session"
    description = (
        "asyncssh + hand-framed NETCONF; one session kept; one <get> per command, "
        "each after the previous reply"
    )
    min_bound = ONE_PER_COMMAND
    expected_bound = ONE_PER_COMMAND

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _kept_netconf(target, self) as session:
            yield session


class NetconfBatchRpc(NetconfMode):
    """A NETCONF session kept; the n ``<get>`` RPCs of an iteration are pipelined (all
    written at once, RFC 6241 section 4.1 lets a server answer them in order). Lower bound
    1 round trip per iteration."""

    name = "netconf/batch-rpc"
    description = (
        "asyncssh + hand-framed NETCONF; one session kept; the <get> of every "
        "command written at once (pipelined), replies read in order"
    )
    min_bound = RoundTripBound(fixed=1)
    expected_bound = RoundTripBound(fixed=1)
    pipelined = True

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _kept_netconf(target, self) as session:
            yield session


class _EditCommitSession:
    def __init__(self, channel: NetconfChannel, trace: SocketTrace) -> None:
        self._channel = channel
        self.trace = trace
        self.phases = PhaseTimer()
        self._edits = 0

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        with self.phases.measure("rpcs"):
            return await self._edit_and_commit(commands)

    async def _edit_and_commit(self, commands: Sequence[str]) -> list[str]:
        outputs = []
        for _ in commands:
            self._edits += 1
            description = f"bench-runner edit {self._edits:08d}"
            outputs.append(
                await self._channel.call(partial(edit_description_rpc, description), b"<ok")
            )
        outputs.append(await self._channel.call(commit_rpc, b"<ok"))
        return ["".join(outputs)]  # one combined output: the commit is not a command


class NetconfEditCommit(NetconfMode):
    """A NETCONF session kept; per command an ``<edit-config>`` (merge into the candidate)
    setting the description of interface Loopback0 to a new value, each after the previous
    ``<ok/>``, then one ``<commit>`` per iteration.

    Lower bound per iteration, n + 1 round trips: each edit and the commit wait for the
    previous reply (a client that pipelined the commit behind edits it had not seen
    succeed could commit a half-applied change). Expected with the floor client: n + 1.
    The session reads Loopback0's running description before the warm-up and restores it
    (edit-config + commit) when the mode ends, neither measured. It writes the target's
    configuration: use it on a lab device, or on a real one whose Loopback0 may change.
    Parameters: the framing; the reply size does not apply (replies are ``<ok/>``).
    """

    name = "netconf/edit-commit"
    description = (
        "asyncssh + hand-framed NETCONF; one session kept; per command an "
        "<edit-config> merge into the candidate (Loopback0 description), each after "
        "the previous <ok/>, then one <commit> per iteration"
    )
    min_bound = RoundTripBound(per_command=1, fixed=1)
    expected_bound = RoundTripBound(per_command=1, fixed=1)

    def parameters(self) -> dict[str, str | int]:
        return {"framing": self.framing}

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        trace = SocketTrace()
        async with traced_connect(target, trace, target.netconf_port) as conn:
            channel = await NetconfChannel.open(conn, self.framing)
            original = original_description(await channel.call(get_description_rpc, b"<data"))
            try:
                yield _EditCommitSession(channel, trace)
            finally:
                await channel.call(partial(edit_description_rpc, original), b"<ok")
                await channel.call(commit_rpc, b"<ok")
                channel.close()
