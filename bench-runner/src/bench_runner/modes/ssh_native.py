"""SSH modes with the libssh2 and libssh bindings: ssh2-python (the ``ssh2`` module, used
directly) and parallel-ssh's single-host clients, ``pssh.clients.native`` (libssh2, through
ssh2-python) and ``pssh.clients.ssh`` (libssh, through ssh-python).

Every client here opens its TCP connection with ``TCP_NODELAY`` set before the SSH
handshake: libssh2 and libssh write each SSH message with its own ``send``, and without it
a kept session waits for the device's delayed ACK (Nagle), about 40 ms per command.
ssh2-python gets a socket the runner made; parallel-ssh makes its own (a gevent socket), so
its client classes are subclassed only to set the option right after ``connect``.

The libraries are blocking (ssh2-python) or gevent-based (parallel-ssh): each session runs
them in a thread of its own (one worker thread per session: a gevent hub and the sockets it
watches belong to one thread). The PTY modes are prompt-driven like the asyncssh floor
client (:mod:`bench_runner.modes.ssh_pty`): first prompt, ``terminal length 0``,
``terminal width 511``, each command with its echo checked, ``exit``.
"""

import asyncio
import re
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import cache, partial
from importlib.metadata import version
from typing import Any, ClassVar, TypeVar

import gevent  # type: ignore[import-untyped]
import ssh2.utils  # type: ignore[import-untyped]
from pssh.clients.base.single import InteractiveShell  # type: ignore[import-untyped]
from pssh.clients.native import SSHClient as NativeClient  # type: ignore[import-untyped]
from pssh.clients.ssh import SSHClient as LibsshClient  # type: ignore[import-untyped]
from ssh2.session import Session as Ssh2Session  # type: ignore[import-untyped]

from bench_runner.modes.base import ONE_PER_COMMAND, RoundTripBound, Session, Target
from bench_runner.modes.ssh_exec import SshBatchExec, SshFreshConnection, SshReuseConnection
from bench_runner.modes.ssh_pty import (
    PROMPT_PATTERN,
    SETUP_COMMANDS,
    TERMINAL_SIZE,
    TERMINAL_TYPE,
    SshPtyFresh,
    SshPtyReuse,
)
from bench_runner.modes.tunnel import (
    TUNNEL_HOST,
    TUNNEL_PORT,
    Pipe,
    TunnelBulk,
    TunnelRequest,
    _BulkSession,
    _RequestSession,
)
from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError, failure_summary, validate_output

Channel = Any  # ssh2.channel.Channel (ssh2-python ships no type information)
IO_TIMEOUT_S = 60.0
READ_BYTES = 65536
T = TypeVar("T")


def nodelay_connection(host: str, port: int) -> socket.socket:
    """A blocking TCP connection with Nagle off (before any SSH byte is written)."""
    sock = socket.create_connection((host, port), timeout=IO_TIMEOUT_S)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


class Worker:
    """One thread for one session's library calls (gevent hubs are per thread)."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bench-ssh")

    async def call(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, partial(function, *args)
        )

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


class SyncPtyShell:
    """The floor client's prompt-driven PTY dialogue over blocking ``read``/``write``
    callables (``read`` returns b"" at EOF)."""

    def __init__(self, read: Callable[[], bytes], write: Callable[[bytes], None]) -> None:
        self._read = read
        self._write = write
        self._prompt_at_end: re.Pattern[str] = PROMPT_PATTERN

    def _read_until_prompt(self) -> str:
        text = ""
        while not self._prompt_at_end.search(text):
            chunk = self._read()
            if not chunk:
                raise IterationError(f"session closed while waiting for prompt: {text[-80:]!r}")
            text += chunk.decode("utf-8", errors="replace")
        return text

    def read_initial_prompt(self) -> None:
        text = self._read_until_prompt()
        match = PROMPT_PATTERN.search(text)
        assert match is not None  # _read_until_prompt returned only because it matched
        prompt = match.group(0).rstrip()
        self._prompt_at_end = re.compile(r"(?:\A|[\r\n])" + re.escape(prompt) + r"\s*\Z")

    def send_command(self, command: str) -> str:
        self._write(command.encode() + b"\n")
        lines = self._read_until_prompt().replace("\r\n", "\n").split("\n")
        if command not in lines[0]:
            raise IterationError(f"{command}: echo not found, got {lines[0].strip()!r}")
        return "\n".join(lines[1:-1])

    def run(self, commands: Sequence[str]) -> list[str]:
        """Prompt, session prep, every command, ``exit`` (written, not waited for here)."""
        self.read_initial_prompt()
        for setup_command in SETUP_COMMANDS:
            validate_output(setup_command, self.send_command(setup_command), allow_empty=True)
        outputs = [self.send_command(command) for command in commands]
        self._write(b"exit\n")
        return outputs


def _check_status(command: str, status: int | None, output: str) -> str:
    if status != 0:
        raise IterationError(f"{command}: exit status {status}: {failure_summary(output)}")
    return output


# --- ssh2-python ----------------------------------------------------------------------------


@cache
def ssh2_version() -> str:
    libssh2 = ssh2.utils.version()
    text = libssh2.decode() if isinstance(libssh2, bytes) else str(libssh2)
    return f"ssh2-python {version('ssh2-python')} (libssh2 {text})"


class Ssh2Connection:
    """ssh2-python in blocking mode on a runner-made socket (TCP_NODELAY): ``handshake``
    (version lines and key exchange), ``userauth_password``."""

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
            chunks = list(_ssh2_read_all(channel))
            channel.close()
            channel.wait_closed()
            status = channel.get_exit_status()
        return _check_status(command, status, b"".join(chunks).decode("utf-8", "replace"))

    def shell(self, commands: Sequence[str], phases: PhaseTimer) -> list[str]:
        with phases.measure("channel_open"):
            channel = self.open_channel()
            channel.pty(TERMINAL_TYPE)
            channel.shell()
        with phases.measure("commands"):

            def read() -> bytes:
                size, data = channel.read(READ_BYTES)
                return data if size > 0 else b""

            def write(data: bytes) -> None:
                channel.write(data)

            outputs = SyncPtyShell(read, write).run(commands)
            for _ in _ssh2_read_all(channel):
                pass
            channel.close()
            channel.wait_closed()
        return outputs

    def direct_tcpip(self) -> Pipe:
        channel = self.session.direct_tcpip_ex(TUNNEL_HOST, TUNNEL_PORT, "127.0.0.1", 0)
        if channel is None:
            raise IterationError("ssh2-python: direct-tcpip refused")
        return _Ssh2Pipe(channel)

    def close(self) -> None:
        try:
            self.session.disconnect()
        except Exception:  # the socket is closed below either way
            pass
        finally:
            self.sock.close()


def _ssh2_read_all(channel: Channel) -> Iterator[bytes]:
    while True:
        size, data = channel.read(READ_BYTES)
        if size <= 0:
            return
        yield data


class _Ssh2Pipe:
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


class _Ssh2FreshSession:
    def __init__(self, target: Target, worker: Worker, *, pty: bool) -> None:
        self._target = target
        self._worker = worker
        self._pty = pty
        self.phases = PhaseTimer()

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        if self._pty:
            connection = Ssh2Connection(self._target, self.phases)
            try:
                return connection.shell(commands, self.phases)
            finally:
                with self.phases.measure("close"):
                    connection.close()
        outputs = []
        for command in commands:
            connection = Ssh2Connection(self._target, self.phases)
            try:
                outputs.append(connection.exec(command, self.phases))
            finally:
                with self.phases.measure("close"):
                    connection.close()
        return outputs

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await self._worker.call(self.run_sync, commands)


class _Ssh2KeptSession:
    def __init__(self, connection: Ssh2Connection, worker: Worker, phases: PhaseTimer) -> None:
        self._connection = connection
        self._worker = worker
        self.phases = phases
        self.style = "reuse"

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        connection = self._connection
        if self.style == "batch":
            return [connection.exec("\n".join(commands), self.phases)]
        if self.style == "pty":
            return connection.shell(commands, self.phases)
        return [connection.exec(command, self.phases) for command in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await self._worker.call(self.run_sync, commands)


@asynccontextmanager
async def _ssh2_kept(target: Target, style: str) -> AsyncIterator[_Ssh2KeptSession]:
    worker = Worker()
    phases = PhaseTimer()
    try:
        connection = await worker.call(Ssh2Connection, target, phases)
        try:
            session = _Ssh2KeptSession(connection, worker, phases)
            session.style = style
            yield session
        finally:
            await worker.call(connection.close)
    finally:
        worker.close()


@asynccontextmanager
async def _ssh2_fresh(target: Target, *, pty: bool) -> AsyncIterator[Session]:
    worker = Worker()
    try:
        yield _Ssh2FreshSession(target, worker, pty=pty)
    finally:
        worker.close()


class _Ssh2Mixin:
    client: ClassVar[str] = "ssh2-python"
    floor: ClassVar[bool] = False

    def client_version(self) -> str:
        return ssh2_version()


class Ssh2FreshConnection(_Ssh2Mixin, SshFreshConnection):
    """ssh2-python (libssh2), blocking: per command a socket (TCP_NODELAY), ``handshake``,
    ``userauth_password``, a session channel, exec, output to EOF, close. Lower bound 4
    round trips per command. Expected 9 per command, counted on the wire at local (README):
    TCP, version lines, KEXINIT, ECDH reply, service accept, password auth (libssh2 sends
    no "none" probe), channel open, exec, and the close handshake it waits for."""

    description = "ssh2-python (libssh2); a new connection per command, exec, close"
    expected_bound = RoundTripBound(per_command=9)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _ssh2_fresh(target, pty=False) as session:
            yield session


class Ssh2ReuseConnection(_Ssh2Mixin, SshReuseConnection):
    """ssh2-python: one session kept; per command a session channel, exec, output to EOF,
    ``close`` and ``wait_closed``. Lower bound 2 round trips per command. Expected 3 per
    command (wire, README): channel open, exec, and the channel close libssh2 waits for."""

    description = "ssh2-python (libssh2); one session kept; a new exec channel per command"
    expected_bound = RoundTripBound(per_command=2)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _ssh2_kept(target, "reuse") as session:
            yield session


class Ssh2BatchExec(_Ssh2Mixin, SshBatchExec):
    """ssh2-python: one session kept; one exec channel per iteration with every command.
    Lower bound 2 round trips. Expected 3 (wire, README): as reuse-conn, once."""

    description = "ssh2-python (libssh2); one session kept; one exec channel with every command"
    expected_bound = RoundTripBound(fixed=3)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _ssh2_kept(target, "batch") as session:
            yield session


class Ssh2PtyFresh(_Ssh2Mixin, SshPtyFresh):
    """ssh2-python: per iteration a new session, a channel with ``pty`` (vt100) and
    ``shell``, the floor client's prompt-driven dialogue, ``exit``, close. Lower bound
    6 + n round trips. Expected 12 + n (wire, README): the login of fresh-conn (6), channel
    open, pty-req and shell each waited for (3), the 2 setup commands, n commands, and the
    close."""

    description = (
        "ssh2-python (libssh2); per iteration a new connection and PTY shell: prompt, "
        "terminal length 0, terminal width 511, each command with echo check, exit"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=12)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _ssh2_fresh(target, pty=True) as session:
            yield session


class Ssh2PtyReuse(_Ssh2Mixin, SshPtyReuse):
    """ssh2-python: one session kept; per iteration a channel with pty and shell, the
    prompt-driven dialogue, ``exit``, close. Lower bound 4 + n round trips. Expected 6 + n
    (wire, README): channel open, pty-req, shell, the 2 setup commands, n commands, close."""

    description = (
        "ssh2-python (libssh2); one session kept; per iteration a new PTY shell: prompt, "
        "terminal length 0, terminal width 511, each command with echo check, exit"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=6)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _ssh2_kept(target, "pty") as session:
            yield session


@asynccontextmanager
async def _ssh2_tunnel(target: Target) -> AsyncIterator[tuple[Worker, Callable[[], Pipe]]]:
    worker = Worker()
    try:
        connection = await worker.call(Ssh2Connection, target, PhaseTimer())
        try:
            yield worker, connection.direct_tcpip
        finally:
            await worker.call(connection.close)
    finally:
        worker.close()


class _WorkerBulkSession(_BulkSession):
    def __init__(self, open_pipe: Callable[[], Pipe], size: str, worker: Worker) -> None:
        super().__init__(open_pipe, size)
        self._worker = worker

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return [await self._worker.call(self.download)]


class _WorkerRequestSession(_RequestSession):
    def __init__(self, open_pipe: Callable[[], Pipe], worker: Worker) -> None:
        super().__init__(open_pipe)
        self._worker = worker

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await self._worker.call(self.run_sync, commands)


class Ssh2TunnelBulk(_Ssh2Mixin, TunnelBulk):
    """ssh2-python: one session kept; per iteration ``direct_tcpip_ex`` to the tunnel
    target and one download on the channel (no local listener, like paramiko's). Lower
    bound 2 round trips. Expected 2 by the protocol (channel confirmed, then the request
    answered); the download adds window adjusts on the wire."""

    description = (
        "ssh2-python (libssh2); one session kept; per iteration direct_tcpip_ex to the "
        "tunnel target and one GET /<size> on it"
    )
    expected_bound = RoundTripBound(fixed=2)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _ssh2_tunnel(target) as (worker, open_pipe):
            yield _WorkerBulkSession(open_pipe, self.size, worker)


class Ssh2TunnelRequest(_Ssh2Mixin, TunnelRequest):
    """ssh2-python: one direct-tcpip channel kept (HTTP keep-alive on it); per command a
    small ``GET /``. Lower bound 1 round trip per command. Expected n."""

    description = (
        "ssh2-python (libssh2); one direct-tcpip channel kept (HTTP keep-alive); per "
        "command one small GET /"
    )
    expected_bound = ONE_PER_COMMAND

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _ssh2_tunnel(target) as (worker, open_pipe):
            session = _WorkerRequestSession(open_pipe, worker)
            try:
                yield session
            finally:
                await worker.call(session.close)


# --- parallel-ssh -----------------------------------------------------------------------------


class _NoDelayNative(NativeClient):  # type: ignore[misc]
    """pssh.clients.native.SSHClient with TCP_NODELAY set once its socket is connected."""

    def _connect_socket(self, *args: Any) -> Any:
        result = super()._connect_socket(*args)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return result


class _NoDelayLibssh(LibsshClient):  # type: ignore[misc]
    """pssh.clients.ssh.SSHClient with TCP_NODELAY set once its socket is connected."""

    def _connect_socket(self, *args: Any) -> Any:
        result = super()._connect_socket(*args)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return result


class PsshFlavour:
    """What differs between parallel-ssh's two clients."""

    def __init__(self, client: str, library: str, factory: type[Any]) -> None:
        self.client = client
        self.library = library
        self.factory = factory

    @cache  # noqa: B019 - two module-level instances
    def version(self) -> str:
        return f"parallel-ssh {version('parallel-ssh')}, {self.library} {version(self.library)}"

    def connect(self, target: Target, phases: PhaseTimer) -> Any:
        """TCP, handshake and password auth (``SSHClient(...)``: pssh connects in its
        constructor; keys, agent and identity files off)."""
        with phases.measure("connect"):
            return self.factory(
                target.host,
                user=target.username,
                password=target.password,
                port=target.ssh_port,
                num_retries=1,
                allow_agent=False,
                identity_auth=False,
                timeout=IO_TIMEOUT_S,
            )

    def request_pty(self, client: Any, channel: Any) -> None:
        if self.client == PSSH_NATIVE.client:
            client.eagain(channel.pty, TERMINAL_TYPE)
        else:
            client.eagain(channel.request_pty_size, TERMINAL_TYPE, *TERMINAL_SIZE)

    def exec(self, client: Any, command: str, phases: PhaseTimer) -> str:
        """``run_command`` (channel open and exec), the output read to its end,
        ``wait_finished`` (EOF and close) and the exit code."""
        with phases.measure("commands"):
            output = client.run_command(command, timeout=IO_TIMEOUT_S)
            text = "\n".join(output.stdout)
            if self.client == PSSH_LIBSSH.client:
                _libssh_wait_exit_status(client, output.channel)
            client.wait_finished(output, timeout=IO_TIMEOUT_S)
            status = output.exit_code
        return _check_status(command, status, text)

    def shell(self, client: Any, commands: Sequence[str], phases: PhaseTimer) -> list[str]:
        """A channel with a PTY, pssh's ``InteractiveShell`` on it (shell request and its
        output readers), the prompt-driven dialogue over its stdout buffer, ``close``."""
        with phases.measure("channel_open"):
            channel = client.open_session()
            self.request_pty(client, channel)
            shell = InteractiveShell(channel, client, read_timeout=IO_TIMEOUT_S)
        with phases.measure("commands"):
            chunks = iter(shell.output.buffers.stdout.rw_buffer)

            def read() -> bytes:
                return bytes(next(chunks, b""))

            def write(data: bytes) -> None:
                client.eagain_write(channel.write, data)

            outputs = SyncPtyShell(read, write).run(commands)
            shell.close()
        return outputs


def _libssh_wait_exit_status(client: Any, channel: Any) -> None:
    """libssh reports the channel's EOF before it has processed the exit-status request
    that follows it (``exit_code`` is then -1, in about one command of three at local):
    let the session read on until the status is there, as ``ssh_channel_get_exit_status``
    does in blocking mode."""
    deadline = time.monotonic() + IO_TIMEOUT_S
    while channel.get_exit_status() == -1 and time.monotonic() < deadline:
        client.poll()
        gevent.sleep(0.0005)


PSSH_NATIVE = PsshFlavour("parallel-ssh-native", "ssh2-python", _NoDelayNative)
PSSH_LIBSSH = PsshFlavour("parallel-ssh-libssh", "ssh-python", _NoDelayLibssh)


def _disconnect(client: Any) -> None:
    client._disconnect()  # what pssh's __exit__ and __del__ do


def _exec_on(flavour: PsshFlavour, command: str, phases: PhaseTimer, client: Any) -> str:
    return flavour.exec(client, command, phases)


class _PsshFreshSession:
    def __init__(self, flavour: PsshFlavour, target: Target, worker: Worker, style: str) -> None:
        self._flavour = flavour
        self._target = target
        self._worker = worker
        self._style = style
        self.phases = PhaseTimer()

    def _one(self, run: Callable[[Any], T]) -> T:
        client = self._flavour.connect(self._target, self.phases)
        try:
            return run(client)
        finally:
            with self.phases.measure("close"):
                _disconnect(client)

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        flavour, phases = self._flavour, self.phases
        if self._style == "pty":
            return self._one(lambda client: flavour.shell(client, commands, phases))
        return [self._one(partial(_exec_on, flavour, command, phases)) for command in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await self._worker.call(self.run_sync, commands)


class _PsshKeptSession:
    def __init__(self, flavour: PsshFlavour, client: Any, worker: Worker, style: str) -> None:
        self._flavour = flavour
        self._client = client
        self._worker = worker
        self._style = style
        self.phases = PhaseTimer()

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        flavour, client, phases = self._flavour, self._client, self.phases
        if self._style == "batch":
            return [flavour.exec(client, "\n".join(commands), phases)]
        if self._style == "pty":
            return flavour.shell(client, commands, phases)
        return [flavour.exec(client, command, phases) for command in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await self._worker.call(self.run_sync, commands)


@asynccontextmanager
async def pssh_session(
    flavour: PsshFlavour, target: Target, *, fresh: bool, style: str
) -> AsyncIterator[Session]:
    worker = Worker()
    try:
        if fresh:
            yield _PsshFreshSession(flavour, target, worker, style)
            return
        client = await worker.call(flavour.connect, target, PhaseTimer())
        try:
            yield _PsshKeptSession(flavour, client, worker, style)
        finally:
            await worker.call(_disconnect, client)
    finally:
        worker.close()


class _PsshMode:
    """What every parallel-ssh mode shares: its session, by the client flavour, whether a
    client is made per iteration (``fresh``) and how commands are sent (``style``)."""

    floor: ClassVar[bool] = False
    flavour: ClassVar[PsshFlavour]
    fresh: ClassVar[bool]
    style: ClassVar[str]

    def client_version(self) -> str:
        return self.flavour.version()

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with pssh_session(
            self.flavour, target, fresh=self.fresh, style=self.style
        ) as session:
            yield session


class _PsshNativeMixin(_PsshMode):
    client: ClassVar[str] = PSSH_NATIVE.client
    flavour: ClassVar[PsshFlavour] = PSSH_NATIVE


class _PsshLibsshMixin(_PsshMode):
    client: ClassVar[str] = PSSH_LIBSSH.client
    flavour: ClassVar[PsshFlavour] = PSSH_LIBSSH


class PsshNativeFreshConnection(_PsshNativeMixin, SshFreshConnection):
    """parallel-ssh ``pssh.clients.native.SSHClient`` (libssh2): per command a client
    (connect, handshake, password auth), ``run_command``, output, ``wait_finished``,
    disconnect. Lower bound 4 round trips per command. Expected 9 per command (wire at
    local, README), as ssh2-python's: the same libssh2 underneath."""

    description = "parallel-ssh native (libssh2); a new SSHClient per command, run_command"
    expected_bound = RoundTripBound(per_command=8)
    fresh = True
    style = "exec"


class PsshNativeReuseConnection(_PsshNativeMixin, SshReuseConnection):
    """parallel-ssh native: one SSHClient kept; ``run_command`` (a new channel) per
    command, ``wait_finished``. Lower bound 2 round trips per command. Expected 3 per
    command (wire, README): channel open, exec, the close it waits for."""

    description = "parallel-ssh native (libssh2); one SSHClient kept; run_command per command"
    expected_bound = RoundTripBound(per_command=2)
    fresh = False
    style = "exec"


class PsshNativeBatchExec(_PsshNativeMixin, SshBatchExec):
    """parallel-ssh native: one SSHClient kept; one ``run_command`` with every command.
    Lower bound 2 round trips. Expected 3 (wire, README)."""

    description = "parallel-ssh native (libssh2); one SSHClient kept; one run_command, all commands"
    expected_bound = RoundTripBound(fixed=3)
    fresh = False
    style = "batch"


class PsshNativePtyFresh(_PsshNativeMixin, SshPtyFresh):
    """parallel-ssh native: per iteration a new SSHClient, a channel with a PTY and pssh's
    ``InteractiveShell``, the prompt-driven dialogue, ``exit``, close. Lower bound 6 + n
    round trips. Expected 12 + n (wire, README), as ssh2-python's."""

    description = (
        "parallel-ssh native (libssh2); per iteration a new SSHClient and PTY shell: prompt, "
        "terminal length 0, terminal width 511, each command with echo check, exit"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=12)
    fresh = True
    style = "pty"


class PsshNativePtyReuse(_PsshNativeMixin, SshPtyReuse):
    """parallel-ssh native: one SSHClient kept; per iteration a PTY shell on a new
    channel. Lower bound 4 + n round trips. Expected 6 + n (wire, README)."""

    description = (
        "parallel-ssh native (libssh2); one SSHClient kept; per iteration a new PTY shell: "
        "prompt, terminal length 0, terminal width 511, each command with echo check, exit"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=6)
    fresh = False
    style = "pty"


class PsshLibsshFreshConnection(_PsshLibsshMixin, SshFreshConnection):
    """parallel-ssh ``pssh.clients.ssh.SSHClient`` (libssh, via ssh-python): per command a
    client, ``run_command``, output, ``wait_finished``, disconnect. Lower bound 4
    round trips per command. Expected 9 per command (wire at local, README)."""

    description = "parallel-ssh ssh (libssh); a new SSHClient per command, run_command"
    expected_bound = RoundTripBound(per_command=8)
    fresh = True
    style = "exec"


class PsshLibsshReuseConnection(_PsshLibsshMixin, SshReuseConnection):
    """parallel-ssh ssh (libssh): one SSHClient kept; ``run_command`` per command. Lower
    bound 2 round trips per command. Expected 3 per command (wire, README)."""

    description = "parallel-ssh ssh (libssh); one SSHClient kept; run_command per command"
    expected_bound = RoundTripBound(per_command=2)
    fresh = False
    style = "exec"


class PsshLibsshBatchExec(_PsshLibsshMixin, SshBatchExec):
    """parallel-ssh ssh (libssh): one SSHClient kept; one ``run_command`` with every
    command. Lower bound 2 round trips. Expected 3 (wire, README)."""

    description = "parallel-ssh ssh (libssh); one SSHClient kept; one run_command, all commands"
    expected_bound = RoundTripBound(fixed=2)
    fresh = False
    style = "batch"


class PsshLibsshPtyFresh(_PsshLibsshMixin, SshPtyFresh):
    """parallel-ssh ssh (libssh): per iteration a new SSHClient and PTY shell, the
    prompt-driven dialogue. Lower bound 6 + n round trips. Expected 12 + n (wire, README)."""

    description = (
        "parallel-ssh ssh (libssh); per iteration a new SSHClient and PTY shell: prompt, "
        "terminal length 0, terminal width 511, each command with echo check, exit"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=12)
    fresh = True
    style = "pty"


class PsshLibsshPtyReuse(_PsshLibsshMixin, SshPtyReuse):
    """parallel-ssh ssh (libssh): one SSHClient kept; per iteration a PTY shell on a new
    channel. Lower bound 4 + n round trips. Expected 6 + n (wire, README)."""

    description = (
        "parallel-ssh ssh (libssh); one SSHClient kept; per iteration a new PTY shell: "
        "prompt, terminal length 0, terminal width 511, each command with echo check, exit"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=6)
    fresh = False
    style = "pty"


PSSH_SCOPE = (
    "parallel-ssh has no port-forwarding API of its own (its tunnel module only reaches an "
    "SSH server through proxy_host), so no tunnel modes"
)
