"""The HTTP side of every tunnel mode: a minimal HTTP/1.1 client to the device's tunnel
target (``127.0.0.1:8080`` on the device: ``GET /`` a one-line text, ``/10M``, ``/100M``,
``/1G`` fixed sizes), run in a worker thread on a blocking socket to the local forward or
on an SSH channel. It is the same for every forwarder, so the forwarders are what differs."""

import asyncio
import socket
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from bench_runner.payloads import BULK_BYTES, BulkSize
from bench_runner.roundtrips import SocketTrace
from bench_runner.validation import IterationError

TUNNEL_HOST = "127.0.0.1"
TUNNEL_PORT = 8080
RECV_BYTES = 256 << 10
IO_TIMEOUT_S = 60.0
type Runner[T] = Callable[[Callable[[], T]], Awaitable[T]]
"""Runs a blocking call off the event loop: a fresh thread, or a session's own worker."""


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


def connect_local(port: int) -> socket.socket:
    """A connection to a local forward's listener."""
    sock = socket.create_connection((TUNNEL_HOST, port), timeout=IO_TIMEOUT_S)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


async def in_thread[T](call: Callable[[], T]) -> T:
    return await asyncio.to_thread(call)


class BulkSession:
    """Per iteration a new pipe and one download of ``size`` (``Connection: close``)."""

    def __init__(
        self,
        open_pipe: Callable[[], Pipe],
        size: BulkSize,
        run: Runner[str] = in_thread,
        trace: SocketTrace | None = None,
    ) -> None:
        self._open_pipe = open_pipe
        self._size = size
        self._expected = BULK_BYTES[size]
        self._run = run
        if trace is not None:
            self.trace = trace  # the SSH connection carrying the forward (asyncssh)

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
        return [await self._run(self.download)]


class RequestSession:
    """One pipe kept (HTTP keep-alive); per command one small ``GET /``."""

    def __init__(
        self,
        open_pipe: Callable[[], Pipe],
        run: Runner[list[str]] = in_thread,
        trace: SocketTrace | None = None,
    ) -> None:
        self._open_pipe = open_pipe
        self._pipe: Pipe | None = None
        self._run = run
        if trace is not None:
            self.trace = trace

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
        return await self._run(lambda: self.run_sync(commands))

    def close(self) -> None:
        if self._pipe is not None:
            self._pipe.close()
            self._pipe = None
