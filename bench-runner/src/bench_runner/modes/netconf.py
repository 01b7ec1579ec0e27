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
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import ClassVar, Literal, Protocol
from xml.sax.saxutils import escape, unescape

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
from bench_runner.roundtrips import SocketTrace
from bench_runner.validation import IterationError

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
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><hello xmlns="{BASE_NS}">'
        f"<capabilities>{capabilities}</capabilities></hello>"
    ).encode()


def payload_filter(reply_bytes: int) -> str:
    """Subtree filter asking the lab device for a ``<get>`` reply of ``reply_bytes``."""
    return f'<payload xmlns="{PAYLOAD_NS}"><size>{reply_bytes}</size></payload>'


def get_payload_rpc(message_id: int, reply_bytes: int) -> bytes:
    return (
        f'<rpc message-id="{message_id}" xmlns="{BASE_NS}"><get><filter type="subtree">'
        f"{payload_filter(reply_bytes)}</filter></get></rpc>"
    ).encode()


def frame(message: bytes, *, chunked: bool) -> bytes:
    """RFC 6242 section 4.2 chunked framing (one chunk), or end-of-message framing."""
    if chunked:
        return b"\n#%d\n" % len(message) + message + b"\n##\n"
    return message + END_OF_MESSAGE


async def read_message(reader: Reader, *, chunked: bool) -> bytes:
    """One framed message from ``reader`` (chunks joined, framing removed)."""
    if not chunked:
        return (await reader.readuntil(END_OF_MESSAGE))[: -len(END_OF_MESSAGE)]
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


NATIVE_NS = "http://cisco.com/ns/yang/Cisco-IOS-XE-native"
EDIT_INTERFACE = ("Loopback", "0")
"""The list entry ``netconf/edit-commit`` edits (its description), restored afterwards."""
DESCRIPTION = re.compile(rb"<description>(.*?)</description>", re.DOTALL)


def _loopback(inner: str) -> str:
    kind, name = EDIT_INTERFACE
    return (
        f'<native xmlns="{NATIVE_NS}"><interface><{kind}><name>{name}</name>{inner}'
        f"</{kind}></interface></native>"
    )


def description_config(description: str | None) -> str:
    """The ``<config>`` setting the edited interface's description (``None`` removes it)."""
    leaf = (
        f'<description xmlns:nc="{BASE_NS}" nc:operation="remove"/>'
        if description is None
        else f"<description>{escape(description)}</description>"
    )
    return f'<config xmlns="{BASE_NS}">{_loopback(leaf)}</config>'


DESCRIPTION_FILTER = _loopback("<description/>")
"""Subtree filter selecting the edited interface's description."""


def original_description(get_config_reply: str) -> str | None:
    """The description in a ``<get-config>`` reply filtered with ``DESCRIPTION_FILTER``."""
    found = DESCRIPTION.search(get_config_reply.encode())
    return unescape(found.group(1).decode()) if found else None


def edit_description_rpc(description: str | None, message_id: int) -> bytes:
    """``<edit-config>`` merging the edited interface's description into the candidate."""
    return (
        f'<rpc message-id="{message_id}" xmlns="{BASE_NS}"><edit-config>'
        "<target><candidate/></target><default-operation>merge</default-operation>"
        f"{description_config(description)}</edit-config></rpc>"
    ).encode()


def commit_rpc(message_id: int) -> bytes:
    return f'<rpc message-id="{message_id}" xmlns="{BASE_NS}"><commit/></rpc>'.encode()


def get_description_rpc(message_id: int) -> bytes:
    """``<get-config>`` of the running description of the edited interface."""
    return (
        f'<rpc message-id="{message_id}" xmlns="{BASE_NS}"><get-config>'
        '<source><running/></source><filter type="subtree">'
        f"{DESCRIPTION_FILTER}</filter></get-config></rpc>"
    ).encode()


def check_reply(reply: bytes, message_id: int, expect: bytes = b"<data") -> str:
    """The reply as text, or IterationError naming what is wrong with it; ``expect`` is
    what a successful reply carries (``<data`` for get, ``<ok`` for edit-config/commit)."""
    match = MESSAGE_ID.search(reply[:512])
    if match is None:
        raise IterationError(f"netconf: not an rpc-reply: {reply[:80]!r}")
    if match.group(1) != str(message_id).encode():
        raise IterationError(
            f"netconf: reply to message-id {match.group(1)!r}, expected {message_id}"
        )
    if b"<rpc-error" in reply:
        error = ERROR_MESSAGE.search(reply)
        detail = error.group(1).decode(errors="replace").strip() if error else "rpc-error"
        raise IterationError(f"netconf: rpc-error: {detail}")
    if expect not in reply:
        raise IterationError(f"netconf: rpc-reply without {expect.decode()}>")
    return reply.decode("utf-8", errors="replace")


class NetconfChannel:
    """An open NETCONF session on an SSH channel (subsystem ``netconf``)."""

    def __init__(self, process: asyncssh.SSHClientProcess[bytes], chunked: bool) -> None:
        self._process = process
        self.chunked = chunked
        self._next_id = 1

    @classmethod
    async def open(cls, conn: asyncssh.SSHClientConnection, framing: Framing) -> "NetconfChannel":
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
            self._process.stdin.write(
                b"".join(
                    frame(get_payload_rpc(message_id, reply_bytes), chunked=self.chunked)
                    for message_id in ids
                )
            )
            return [
                check_reply(
                    await read_message(self._process.stdout, chunked=self.chunked), message_id
                )
                for message_id in ids
            ]
        outputs = []
        for message_id in ids:
            self._process.stdin.write(
                frame(get_payload_rpc(message_id, reply_bytes), chunked=self.chunked)
            )
            outputs.append(
                check_reply(
                    await read_message(self._process.stdout, chunked=self.chunked), message_id
                )
            )
        return outputs

    async def call(self, build: Callable[[int], bytes], expect: bytes) -> str:
        """One RPC (``build(message_id)``), waiting for and checking its reply."""
        message_id = self._next_id
        self._next_id += 1
        self._process.stdin.write(frame(build(message_id), chunked=self.chunked))
        reply = await read_message(self._process.stdout, chunked=self.chunked)
        return check_reply(reply, message_id, expect)

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
