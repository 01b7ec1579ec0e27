"""ssh2-python (the ``ssh2`` module, libssh2) used directly, blocking, on a runner-made
socket with TCP_NODELAY, in one worker thread per session: exec channels on a new or a kept
session, PTY shells, and ``direct_tcpip_ex`` channels as a forward."""

from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from functools import cache, partial
from importlib.metadata import version as installed
from typing import Any, TypeVar

import ssh2.utils  # type: ignore[import-untyped]
from ssh2.session import Session as Ssh2Session  # type: ignore[import-untyped]

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.blocking import (
    IO_TIMEOUT_S,
    Worker,
    check_exit_status,
    nodelay_connection,
    run_pty_dialogue,
)
from bench_runner.modes.clients.pty_dialogue import READ_CHUNK, TERMINAL_TYPE
from bench_runner.modes.clients.tunnel_http import (
    TUNNEL_HOST,
    TUNNEL_PORT,
    BulkSession,
    Pipe,
    RequestSession,
)
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError

Channel = Any  # ssh2.channel.Channel (ssh2-python ships no type information)
T = TypeVar("T")


@cache
def version() -> str:
    libssh2 = ssh2.utils.version()
    text = libssh2.decode() if isinstance(libssh2, bytes) else str(libssh2)
    return f"ssh2-python {installed('ssh2-python')} (libssh2 {text})"


def _read_all(channel: Channel) -> Iterator[bytes]:
    while True:
        size, data = channel.read(READ_CHUNK)
        if size <= 0:
            return
        yield data


class Ssh2Connection:
    """A socket (TCP_NODELAY), ``handshake`` (version lines and key exchange),
    ``userauth_password``."""

    def __init__(self, target: Target, phases: PhaseTimer) -> None:
        with phases.measure("tcp_connect"):
            self.sock = nodelay_connection(target.host, target.ssh_port)
        self.session = Ssh2Session()
        self.session.set_timeout(int(IO_TIMEOUT_S * 1000))
        try:
            with phases.measure("key_exchange"):
                self.session.handshake(self.sock)
            with phases.measure("auth"):
                self.session.userauth_password(target.username, target.password)
        except BaseException:
            self.close()
            raise

    def open_channel(self) -> Channel:
        channel = self.session.open_session()
        if channel is None:
            raise IterationError("ssh2-python: channel open refused")
        return channel

    def exec(self, command: str, phases: PhaseTimer) -> str:
        """A session channel (channel_open), exec, output to EOF, close and exit status
        (commands)."""
        with phases.measure("channel_open"):
            channel = self.open_channel()
        with phases.measure("commands"):
            channel.execute(command)
            chunks = list(_read_all(channel))
            channel.close()
            channel.wait_closed()
            status = channel.get_exit_status()
        return check_exit_status(command, status, b"".join(chunks).decode("utf-8", "replace"))

    def shell(self, commands: Sequence[str], phases: PhaseTimer) -> list[str]:
        with phases.measure("channel_open"):
            channel = self.open_channel()
            channel.pty(TERMINAL_TYPE)
            channel.shell()
        with phases.measure("commands"):

            def read() -> bytes:
                size, data = channel.read(READ_CHUNK)
                return data if size > 0 else b""

            def write(data: bytes) -> None:
                channel.write(data)

            outputs = run_pty_dialogue(read, write, commands)
            for _ in _read_all(channel):
                pass
            channel.close()
            channel.wait_closed()
        return outputs

    def direct_tcpip(self) -> Pipe:
        channel = self.session.direct_tcpip_ex(TUNNEL_HOST, TUNNEL_PORT, "127.0.0.1", 0)
        if channel is None:
            raise IterationError("ssh2-python: direct-tcpip refused")
        return _ChannelPipe(channel)

    def close(self) -> None:
        try:
            self.session.disconnect()
        except Exception:  # the socket is closed below either way
            pass
        finally:
            self.sock.close()


class _ChannelPipe:
    """A direct-tcpip channel as the tunnel modes' byte stream."""

    def __init__(self, channel: Channel) -> None:
        self._channel = channel

    def sendall(self, data: bytes, /) -> None:
        view = memoryview(data)
        while view:
            _, written = self._channel.write(bytes(view))
            view = view[written:]

    def recv(self, size: int, /) -> bytes:
        count, data = self._channel.read(size)
        if count < 0:
            raise OSError(f"ssh2-python: channel read error {count}")
        return bytes(data) if count > 0 else b""

    def close(self) -> None:
        self._channel.close()


def _exec(connection: Ssh2Connection, *, command: str, phases: PhaseTimer) -> str:
    return connection.exec(command, phases)


class _FreshSession:
    def __init__(self, target: Target, worker: Worker, *, pty: bool) -> None:
        self._target = target
        self._worker = worker
        self._pty = pty
        self.phases = PhaseTimer()

    def _connected(self, run: Callable[[Ssh2Connection], T]) -> T:
        """``run`` on a new session, closed afterwards (close timed)."""
        connection = Ssh2Connection(self._target, self.phases)
        try:
            return run(connection)
        finally:
            with self.phases.measure("close"):
                connection.close()

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        phases = self.phases
        if self._pty:
            return self._connected(lambda connection: connection.shell(commands, phases))
        outputs = []
        for command in commands:
            outputs.append(self._connected(partial(_exec, command=command, phases=phases)))
        return outputs

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await self._worker.call(self.run_sync, commands)


class _KeptSession:
    def __init__(
        self, connection: Ssh2Connection, worker: Worker, phases: PhaseTimer, style: str
    ) -> None:
        self._connection = connection
        self._worker = worker
        self.phases = phases
        self._style = style

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        connection = self._connection
        if self._style == "batch":
            return [connection.exec("\n".join(commands), self.phases)]
        if self._style == "pty":
            return connection.shell(commands, self.phases)
        return [connection.exec(command, self.phases) for command in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await self._worker.call(self.run_sync, commands)


@asynccontextmanager
async def _kept_connection(target: Target) -> AsyncIterator[tuple[Worker, Ssh2Connection]]:
    worker = Worker()
    try:
        connection = await worker.call(Ssh2Connection, target, PhaseTimer())
        try:
            yield worker, connection
        finally:
            await worker.call(connection.close)
    finally:
        worker.close()


@asynccontextmanager
async def fresh(mode: Mode, target: Target, *, pty: bool) -> AsyncIterator[Session]:
    """A new session per command (exec), or per iteration (``pty``)."""
    worker = Worker()
    try:
        yield _FreshSession(target, worker, pty=pty)
    finally:
        worker.close()


@asynccontextmanager
async def kept(mode: Mode, target: Target, *, style: str) -> AsyncIterator[Session]:
    """One session kept: an exec channel per command (``reuse``), one with every command
    (``batch``), or a PTY shell per iteration (``pty``)."""
    async with _kept_connection(target) as (worker, connection):
        # The setup's phases were timed on a timer of their own: the session's starts empty.
        yield _KeptSession(connection, worker, PhaseTimer(), style)


@asynccontextmanager
async def tunnel_bulk(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One session kept; per iteration ``direct_tcpip_ex`` and one download on it."""
    async with _kept_connection(target) as (worker, connection):
        yield BulkSession(connection.direct_tcpip, mode.bulk_size(), run=worker.call)


@asynccontextmanager
async def tunnel_requests(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One direct-tcpip channel kept (HTTP keep-alive); per command one small GET."""
    async with _kept_connection(target) as (worker, connection):
        session = RequestSession(connection.direct_tcpip, run=worker.call)
        try:
            yield session
        finally:
            await worker.call(session.close)


def fleet_host(target: Target, commands: Sequence[str]) -> list[str]:
    """One fleet device as ssh2-python's examples (the publication's code) do: socket,
    ``handshake``, ``userauth_password``, a session channel per command with exec and output
    to EOF, disconnect."""
    phases = PhaseTimer()
    connection = Ssh2Connection(target, phases)
    try:
        return [connection.exec(command, phases) for command in commands]
    finally:
        connection.close()
