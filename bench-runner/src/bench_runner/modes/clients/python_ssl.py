"""Python's ssl module (OpenSSL) with http.client: TLS 1.3 session resumption, which httpx
cannot do (it has no API to offer a saved session). A new TCP connection per command whose
handshake offers the newest ticket; an iteration fails when the server did not resume."""

import asyncio
import base64
import http.client
import platform
import socket
import ssl
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from bench_runner.alpn import AlpnLog
from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.device_api import HTTP_OK, REQUEST_TIMEOUT_S, exec_path
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer
from bench_runner.tls import tls13_context
from bench_runner.validation import IterationError, failure_summary


def version() -> str:
    return f"Python {platform.python_version()}, {ssl.OPENSSL_VERSION}"


class _ResumingConnection(http.client.HTTPSConnection):
    """An HTTPS connection whose TLS handshake offers a saved session (TLS 1.3 ticket)."""

    def __init__(
        self,
        host: str,
        port: int,
        context: ssl.SSLContext,
        session: ssl.SSLSession | None,
        phases: PhaseTimer,
    ) -> None:
        super().__init__(host, port, context=context, timeout=REQUEST_TIMEOUT_S)
        self._tls_context = context
        self._tls_session = session
        self._phases = phases
        self.tls_socket: ssl.SSLSocket | None = None
        self.connect_s = 0.0
        """Time connect() took: ``request()`` connects before it sends."""

    def connect(self) -> None:
        started = time.perf_counter()
        raw = socket.create_connection((self.host, self.port), self.timeout)
        connected = time.perf_counter()
        self.tls_socket = self._tls_context.wrap_socket(
            raw, server_hostname=self.host, session=self._tls_session
        )
        self.sock = self.tls_socket
        self.connect_s = time.perf_counter() - started
        self._phases.add("tcp_connect", connected - started)
        self._phases.add("tls_handshake", self.connect_s - (connected - started))


class _TlsResumeSession:
    """Keeps the newest TLS session (ticket) and resumes it on every new connection."""

    def __init__(self, target: Target) -> None:
        self._target = target
        self._context = tls13_context()
        credentials = f"{target.username}:{target.password}".encode()
        self._authorization = "Basic " + base64.b64encode(credentials).decode("ascii")
        self._session: ssl.SSLSession | None = None
        self.phases = PhaseTimer()
        self.alpn = AlpnLog()

    def get(self, command: str, *, require_resumption: bool) -> str:
        phases = self.phases
        connection = _ResumingConnection(
            self._target.host, self._target.https_port, self._context, self._session, phases
        )
        try:
            started = time.perf_counter()
            connection.request(
                "GET",
                exec_path([command]),
                headers={
                    "Authorization": self._authorization,
                    "Connection": "close",
                },
            )
            # request() connected first (tcp_connect and tls_handshake, timed by connect()).
            phases.add("send_request", time.perf_counter() - started - connection.connect_s)
            with phases.measure("receive_headers"):
                response = connection.getresponse()
            # TLS 1.3 tickets arrive right after the handshake, so they have been processed
            # once the status line is in; read them before http.client closes the socket.
            tls = connection.tls_socket
            assert tls is not None  # set by connect(), which request() called
            reused = tls.session_reused
            self._session = tls.session
            self.alpn.note(tls, tls)
            with phases.measure("receive_body"):
                body = response.read().decode("utf-8", errors="replace")
        finally:
            with phases.measure("close"):
                connection.close()
        if response.status != HTTP_OK:
            raise IterationError(f"{command}: HTTP {response.status}: {failure_summary(body)}")
        if require_resumption and not reused:
            raise IterationError(f"{command}: TLS session not resumed (no ticket accepted)")
        return body

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        return [self.get(command, require_resumption=True) for command in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


@asynccontextmanager
async def tls_resume(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """The first ticket is fetched before the warm-up (not measured)."""
    session = _TlsResumeSession(target)
    await asyncio.to_thread(session.get, "show clock", require_resumption=False)
    yield session
