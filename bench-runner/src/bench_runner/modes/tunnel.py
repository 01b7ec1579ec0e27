"""SSH local forwarding (``ssh -L``) to the device's tunnel target, an HTTP server on the
device's ``127.0.0.1:8080`` (``GET /`` a one-line text, ``/10M``, ``/100M``, ``/1G`` fixed
sizes). Three forwarders: asyncssh ``forward_local_port`` (floor), the OpenSSH client
(``ssh -N -L`` kept as a child process, password via sshpass) and paramiko (a
``direct-tcpip`` channel per connection, which is what its forward demo does behind its
listener). The HTTP side is the same minimal HTTP/1.1 client for all three, run in a worker
thread on a blocking socket (or the paramiko channel), so the forwarders are what differs.
"""

import asyncio
import contextlib
import os
import socket
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Protocol

import paramiko

from bench_runner.modes.base import (
    ONE_PER_COMMAND,
    Mode,
    RoundTripBound,
    Session,
    Target,
    Transport,
)
from bench_runner.modes.bulk import BULK_BYTES, BulkDownload
from bench_runner.modes.ssh_exec import traced_connect
from bench_runner.modes.ssh_libraries import openssh_argv, openssh_version, paramiko_connect
from bench_runner.roundtrips import SocketTrace
from bench_runner.validation import IterationError

TUNNEL_HOST = "127.0.0.1"
TUNNEL_PORT = 8080
RECV_BYTES = 256 << 10
IO_TIMEOUT_S = 60.0
FORWARD_WAIT_S = 30.0


class Pipe(Protocol):
    """A byte stream to the tunnel target: a socket to the local forward, or a channel."""

    def sendall(self, data: bytes, /) -> None: ...

    def recv(self, size: int, /) -> bytes: ...

    def close(self) -> None: ...


def http_get(pipe: Pipe, path: str, *, keep_alive: bool) -> tuple[int, bytes]:
    """``GET path`` on ``pipe``; the status and the body (a body of more than 64 KiB is
    counted, not kept: its returned bytes are empty). Needs Content-Length (the target
    always sets it); raises IterationError on a short or malformed response."""
    connection = "keep-alive" if keep_alive else "close"
    pipe.sendall(
        f"GET {path} HTTP/1.1\r\nHost: tunnel-target\r\nConnection: {connection}\r\n\r\n".encode()
    )
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        if len(buffer) > 65536:
            raise IterationError(f"tunnel: {path}: headers over 64 KiB")
        chunk = pipe.recv(RECV_BYTES)
        if not chunk:
            raise IterationError(f"tunnel: {path}: connection closed before the headers")
        buffer += chunk
    head, _, body = buffer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise IterationError(f"tunnel: {path}: bad status line {lines[0][:60]!r}")
    headers = {
        name.strip().lower(): value.strip()
        for name, _, value in (line.partition(":") for line in lines[1:])
    }
    length_text = headers.get("content-length", "")
    if not length_text.isdigit():
        raise IterationError(f"tunnel: {path}: no Content-Length")
    length = int(length_text)
    keep = length <= 65536
    received = len(body)
    kept = [body] if keep else []
    while received < length:
        chunk = pipe.recv(min(RECV_BYTES, length - received))
        if not chunk:
            raise IterationError(f"tunnel: {path}: {received} of {length} bytes, then EOF")
        received += len(chunk)
        if keep:
            kept.append(chunk)
    return int(parts[1]), b"".join(kept)[:length]


def _connect_local(port: int) -> socket.socket:
    sock = socket.create_connection((TUNNEL_HOST, port), timeout=IO_TIMEOUT_S)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


class TunnelMode(Mode):
    """Base of the tunnel modes: the forward is kept across iterations (opened before the
    warm-up, not measured); the RTT probe is on the SSH port, which carries the tunnel."""

    transport = Transport.TUNNEL
    client = "asyncssh"


class TunnelBulk(BulkDownload, TunnelMode):
    """One download of ``size`` bytes per iteration (``GET /10M``, ``/100M`` or ``/1G``)
    through the kept forward, on a new connection to it (``Connection: close``); the
    commands are not used. The throughput is the size over the wall time.

    Lower bound per iteration, 2 round trips: the forwarder opens a ``direct-tcpip``
    channel for the new connection and must see its confirmation before it may send the
    request (RFC 4254 section 7.2), then the request and response; the transfer time on top
    is the size over the path's bandwidth (SSH window and cipher, netem's rate).
    """

    name = "tunnel/bulk"
    description = (
        "asyncssh forward_local_port (ssh -L) kept; per iteration a new "
        "connection through it and one GET /<size> from the device's tunnel target"
    )
    min_bound = RoundTripBound(fixed=2)
    expected_bound = RoundTripBound(fixed=2)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with asyncssh_forward(target) as (port, trace):
            yield _TracedBulkSession(lambda: _connect_local(port), self.size, trace)


class TunnelRequest(TunnelMode):
    """Per command one small ``GET /`` through the kept forward, on one HTTP/1.1
    keep-alive connection through it (opened by the warm-up): the tunnel's counterpart of
    ``https/keep-alive`` (the same request pattern straight to nginx, over TLS).

    Lower bound per command, 1 round trip (request and response); the forwarder adds its
    own processing, not round trips.
    """

    name = "tunnel/request"
    description = (
        "asyncssh forward_local_port (ssh -L) kept; one HTTP/1.1 keep-alive "
        "connection through it; per command one small GET / (vs https/keep-alive)"
    )
    min_bound = ONE_PER_COMMAND
    expected_bound = ONE_PER_COMMAND

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with asyncssh_forward(target) as (port, trace):
            session = _TracedRequestSession(lambda: _connect_local(port), trace)
            try:
                yield session
            finally:
                session.close()


class _BulkSession:
    def __init__(self, open_pipe: Callable[[], Pipe], size: str) -> None:
        self._open_pipe = open_pipe
        self._size = size
        self._expected = BULK_BYTES[size]

    def download(self) -> str:
        pipe = self._open_pipe()
        try:
            status, _ = http_get(pipe, f"/{self._size}", keep_alive=False)
        except OSError as exc:
            raise IterationError(f"tunnel: /{self._size}: {type(exc).__name__}: {exc}") from exc
        finally:
            pipe.close()
        if status != 200:
            raise IterationError(f"tunnel: /{self._size}: HTTP {status}")
        return f"{self._expected} bytes"

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return [await asyncio.to_thread(self.download)]


class _RequestSession:
    def __init__(self, open_pipe: Callable[[], Pipe]) -> None:
        self._open_pipe = open_pipe
        self._pipe: Pipe | None = None

    def request(self) -> str:
        if self._pipe is None:
            self._pipe = self._open_pipe()
        try:
            status, body = http_get(self._pipe, "/", keep_alive=True)
        except (OSError, IterationError) as exc:
            self.close()  # the next iteration reconnects; this one failed
            if isinstance(exc, IterationError):
                raise
            raise IterationError(f"tunnel: /: {type(exc).__name__}: {exc}") from exc
        if status != 200:
            raise IterationError(f"tunnel: /: HTTP {status}")
        return body.decode("utf-8", errors="replace")

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        return [self.request() for _ in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)

    def close(self) -> None:
        if self._pipe is not None:
            self._pipe.close()
            self._pipe = None


class _TracedBulkSession(_BulkSession):
    """asyncssh: the SSH connection carrying the forward is traced."""

    def __init__(self, open_pipe: Callable[[], Pipe], size: str, trace: SocketTrace) -> None:
        super().__init__(open_pipe, size)
        self.trace = trace


class _TracedRequestSession(_RequestSession):
    def __init__(self, open_pipe: Callable[[], Pipe], trace: SocketTrace) -> None:
        super().__init__(open_pipe)
        self.trace = trace


# --- forwarders ---------------------------------------------------------------------------


@asynccontextmanager
async def asyncssh_forward(target: Target) -> AsyncIterator[tuple[int, SocketTrace]]:
    """asyncssh ``forward_local_port`` on an ephemeral loopback port; the SSH socket is
    traced (round trips counted)."""
    trace = SocketTrace()
    async with traced_connect(target, trace) as conn:
        listener = await conn.forward_local_port(TUNNEL_HOST, 0, TUNNEL_HOST, TUNNEL_PORT)
        try:
            yield listener.get_port(), trace
        finally:
            listener.close()


def _free_local_port() -> int:
    with socket.socket() as probe:
        probe.bind((TUNNEL_HOST, 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def openssh_forward(target: Target) -> AsyncIterator[int]:
    """``ssh -N -L port:127.0.0.1:8080`` kept as a child process; ready once a connection
    through it gets an HTTP answer (``ExitOnForwardFailure`` ends ssh if it cannot listen)."""
    port = _free_local_port()
    process = await asyncio.create_subprocess_exec(
        *openssh_argv(
            target,
            "-N",
            "-o",
            "ExitOnForwardFailure=yes",
            "-L",
            f"{TUNNEL_HOST}:{port}:{TUNNEL_HOST}:{TUNNEL_PORT}",
        ),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "SSHPASS": target.password},
    )
    try:
        await _wait_for_forward(process, port)
        yield port
    finally:
        if process.returncode is None:
            process.terminate()
        with contextlib.suppress(ProcessLookupError):
            await process.wait()


def _forward_answers(port: int) -> bool:
    try:
        sock = _connect_local(port)
    except OSError:
        return False
    try:
        sock.settimeout(5.0)
        return http_get(sock, "/", keep_alive=False)[0] == 200
    except (OSError, IterationError):
        return False
    finally:
        sock.close()


async def _wait_for_forward(process: asyncio.subprocess.Process, port: int) -> None:
    deadline = time.monotonic() + FORWARD_WAIT_S
    while not await asyncio.to_thread(_forward_answers, port):
        if process.returncode is not None:
            stderr = await process.stderr.read() if process.stderr else b""
            raise IterationError(
                f"ssh -L exited {process.returncode}: {stderr.decode(errors='replace').strip()}"
            )
        if time.monotonic() > deadline:
            raise IterationError(f"ssh -L forward not answering after {FORWARD_WAIT_S:g} s")
        await asyncio.sleep(0.05)


def paramiko_channel_opener(client: paramiko.SSHClient) -> Callable[[], Pipe]:
    """A new ``direct-tcpip`` channel to the tunnel target per call (paramiko's
    ``open_channel``): the forward without a local listener."""
    transport = client.get_transport()
    if transport is None:
        raise IterationError("paramiko: no transport after connect")

    def open_pipe() -> Pipe:
        channel = transport.open_channel(
            "direct-tcpip", (TUNNEL_HOST, TUNNEL_PORT), ("127.0.0.1", 0), timeout=IO_TIMEOUT_S
        )
        channel.settimeout(IO_TIMEOUT_S)
        return channel

    return open_pipe


@asynccontextmanager
async def paramiko_forward(target: Target) -> AsyncIterator[Callable[[], Pipe]]:
    client = await asyncio.to_thread(paramiko_connect, target)
    try:
        yield paramiko_channel_opener(client)
    finally:
        client.close()


class OpensshTunnelBulk(TunnelBulk):
    """OpenSSH ``ssh -N -L`` (sshpass) kept as a child process; per iteration a new
    connection through it and one download. Lower bound 2 round trips per iteration.
    Expected 2, by the protocol, as for every forwarder (RFC 4254 section 7.2): the
    direct-tcpip channel confirmed, then the request answered; the download itself is
    bandwidth and window adjusts (54 direction changes on the wire for 10 MB at 30 ms: flow
    control, not request/response)."""

    client = "openssh"
    floor = False
    description = (
        "OpenSSH ssh -N -L (via sshpass) kept; per iteration a new connection "
        "through it and one GET /<size>"
    )
    expected_bound = RoundTripBound(fixed=2)

    def client_version(self) -> str:
        return openssh_version()

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with openssh_forward(target) as port:
            yield _BulkSession(lambda: _connect_local(port), self.size)


class OpensshTunnelRequest(TunnelRequest):
    """OpenSSH ``ssh -N -L`` kept; one keep-alive connection through it; per command a small
    ``GET /``. Lower bound 1 round trip per command. Expected n: one exchange per request
    through the forward, 5 for 5 on the wire and as added delay (README)."""

    client = "openssh"
    floor = False
    description = (
        "OpenSSH ssh -N -L (via sshpass) kept; one keep-alive connection through "
        "it; per command one small GET /"
    )
    expected_bound = ONE_PER_COMMAND

    def client_version(self) -> str:
        return openssh_version()

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with openssh_forward(target) as port:
            session = _RequestSession(lambda: _connect_local(port))
            try:
                yield session
            finally:
                session.close()


class ParamikoTunnelBulk(TunnelBulk):
    """paramiko: one SSH connection kept; per iteration a new ``direct-tcpip`` channel
    (``open_channel``) and one download on it. Lower bound 2 round trips per iteration.
    Expected 2, by the protocol: open_channel waits for the confirmation, then the request
    is answered; the wire's 13 for 10 MB at 30 ms add paramiko's window adjusts."""

    client = "paramiko"
    floor = False
    description = (
        "paramiko; one connection kept; per iteration open_channel('direct-tcpip') "
        "to the tunnel target and one GET /<size> on it"
    )
    expected_bound = RoundTripBound(fixed=2)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with paramiko_forward(target) as open_pipe:
            yield _BulkSession(open_pipe, self.size)


class ParamikoTunnelRequest(TunnelRequest):
    """paramiko: one ``direct-tcpip`` channel kept (HTTP keep-alive on it); per command a
    small ``GET /``. Lower bound 1 round trip per command. Expected n: one exchange per
    request on the kept channel, 5 for 5 (README)."""

    client = "paramiko"
    floor = False
    description = (
        "paramiko; one direct-tcpip channel kept (HTTP keep-alive); per command one small GET /"
    )
    expected_bound = ONE_PER_COMMAND

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with paramiko_forward(target) as open_pipe:
            session = _RequestSession(open_pipe)
            try:
                yield session
            finally:
                session.close()
