"""HTTPS modes against the device's /admin/exec API (nginx, TLS 1.3, HTTP/1.1)."""

import asyncio
import base64
import http.client
import json
import platform
import socket
import ssl
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from urllib.parse import quote_plus

import httpx

from bench_runner.modes.base import (
    ONE_PER_COMMAND,
    Mode,
    RoundTripBound,
    Session,
    Target,
    Transport,
)
from bench_runner.modes.http_phases import trace_extension
from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError, failure_summary, first_line

REQUEST_TIMEOUT_S = 60.0


def tls13_context() -> ssl.SSLContext:
    """TLS 1.3 only. Certificate checks are off because the lab device generates a
    self-signed certificate at first start; the lab network is isolated."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def exec_path(commands: Sequence[str]) -> str:
    """``/admin/exec/cmd1/cmd2``: one path segment per command, spaces as '+', and every
    other reserved character (including '/') percent-encoded."""
    return "/admin/exec/" + "/".join(quote_plus(command, safe="") for command in commands)


def new_client(target: Target, *, keep_alive: bool) -> httpx.AsyncClient:
    # max_keepalive_connections=0 makes the pool close each connection after its response.
    limits = httpx.Limits(max_keepalive_connections=None if keep_alive else 0)
    return httpx.AsyncClient(
        base_url=f"https://{target.host}:{target.https_port}",
        auth=httpx.BasicAuth(target.username, target.password),
        verify=tls13_context(),
        limits=limits,
        headers=None if keep_alive else {"Connection": "close"},
        timeout=REQUEST_TIMEOUT_S,
        trust_env=False,  # lab traffic never goes through a proxy from the environment
    )


async def get_exec(
    client: httpx.AsyncClient, commands: Sequence[str], phases: PhaseTimer | None = None
) -> str:
    response = await client.get(exec_path(commands), extensions=trace_extension(phases))
    if response.status_code != httpx.codes.OK:
        reason = failure_summary(response.text)
        raise IterationError(f"{'/'.join(commands)}: HTTP {response.status_code}: {reason}")
    return response.text


class _PerCommandSession:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return [await get_exec(self._client, [command], self.phases) for command in commands]


class _BatchSession:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return [await get_exec(self._client, commands, self.phases)]


class _ConcurrentSession:
    """No phases: the requests are in flight together, so their steps overlap and would
    add up to more than the wall time."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return list(
            await asyncio.gather(*(get_exec(self._client, [command]) for command in commands))
        )


class HttpsFreshConnection(Mode):
    """A new TCP + TLS connection for every command (keep-alive disabled).

    Lower bound per command, 3 round trips: TCP handshake, TLS 1.3 full handshake (1 RTT;
    no 0-RTT early data: Python's ssl module cannot send it) and the request itself.
    Expected with httpx: 3 (measured 3.2 to 3.4 per command; the fraction is TCP-level
    waiting inside a handshake or response, not a protocol round trip).
    """

    name = "https/fresh-conn"
    transport = Transport.HTTPS
    client = "httpx"
    description = (
        "httpx; a new TCP + TLS 1.3 connection per command (keep-alive disabled), "
        "GET /admin/exec/<command>"
    )
    min_bound = RoundTripBound(per_command=3)
    expected_bound = RoundTripBound(per_command=3)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with new_client(target, keep_alive=False) as client:
            yield _PerCommandSession(client)


class HttpsKeepAlive(Mode):
    """One HTTP/1.1 keep-alive connection kept across iterations, one GET per command.

    Lower bound per command, 1 round trip (request and response); HTTP/1.1 clients do not
    pipeline. Expected with httpx: 1 (the connection is opened by the warm-up; with no
    warm-up the first iteration also pays 2 for TCP and TLS).
    """

    name = "https/keep-alive"
    transport = Transport.HTTPS
    client = "httpx"
    description = (
        "httpx; one client kept across iterations (HTTP/1.1 keep-alive), "
        "one GET /admin/exec/<command> per command"
    )
    min_bound = ONE_PER_COMMAND
    expected_bound = ONE_PER_COMMAND

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with new_client(target, keep_alive=True) as client:
            yield _PerCommandSession(client)


class HttpsBatch(Mode):
    """All commands of an iteration in one request on a kept connection.

    The name comes from the original issue; the request is a GET whose path carries every
    command (``/admin/exec/cmd1/cmd2/...``), not a POST.

    Lower bound per iteration, 1 round trip. Expected with httpx: 1 (measured 1.0 for one
    command and 1.5 for the five default ones, whose ~7 KB answer arrives half an RTT after
    its first bytes: TCP-level waiting, not a protocol round trip).
    """

    name = "https/batch-post"
    transport = Transport.HTTPS
    client = "httpx"
    description = (
        "httpx; kept keep-alive client, one request per iteration carrying all commands: "
        "GET /admin/exec/cmd1/cmd2/... (a GET despite the name)"
    )
    min_bound = RoundTripBound(fixed=1)
    expected_bound = RoundTripBound(fixed=1)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with new_client(target, keep_alive=True) as client:
            yield _BatchSession(client)


class HttpsMultiCommand(Mode):
    """Every command of an iteration in flight at once: one GET per command, all sent
    concurrently over a kept pool of HTTP/1.1 keep-alive connections (one connection per
    request in flight; the warm-up opens them).

    Lower bound per iteration, 1 round trip: the requests do not depend on each other.
    Expected with httpx: 1 once the pool holds a connection per command (with no warm-up,
    the first iteration also pays TCP and TLS for each new connection, in parallel).
    """

    name = "https/multi-cmd"
    transport = Transport.HTTPS
    client = "httpx"
    description = (
        "httpx; kept keep-alive pool; one GET /admin/exec/<command> per command, all "
        "commands of an iteration sent concurrently (a connection per request in flight)"
    )
    min_bound = RoundTripBound(fixed=1)
    expected_bound = RoundTripBound(fixed=1)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with new_client(target, keep_alive=True) as client:
            yield _ConcurrentSession(client)


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
            with phases.measure("receive_body"):
                body = response.read().decode("utf-8", errors="replace")
        finally:
            with phases.measure("close"):
                connection.close()
        if response.status != httpx.codes.OK:
            raise IterationError(f"{command}: HTTP {response.status}: {failure_summary(body)}")
        if require_resumption and not reused:
            raise IterationError(f"{command}: TLS session not resumed (no ticket accepted)")
        return body

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        return [self.get(command, require_resumption=True) for command in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


class HttpsTlsResume(Mode):
    """A new TCP connection per command whose TLS 1.3 handshake resumes the previous
    session with a ticket (PSK with (EC)DHE): no certificate, no signature.

    Lower bound per command, 3 round trips, the same as ``https/fresh-conn``: TCP, the
    resumed TLS 1.3 handshake (still 1 RTT; 0-RTT early data is not available from Python's
    ssl module), the request. What resumption saves is bytes and CPU, not round trips.
    Expected: 4 per command (measured 4.0 at 30 ms, one more than ``https/fresh-conn``
    with httpx; not yet attributed to a packet exchange).
    An iteration fails when the server did not resume the session. The first ticket is
    fetched before the warm-up (not measured). Client: Python's ssl module (OpenSSL) with
    http.client, because httpx cannot offer a saved session.
    """

    name = "https/tls-resume"
    transport = Transport.HTTPS
    client = "python-ssl"
    description = (
        "Python ssl + http.client; a new TCP connection per command, TLS 1.3 session "
        "resumption with the previous connection's ticket, GET /admin/exec/<command>"
    )
    min_bound = RoundTripBound(per_command=3)
    expected_bound = RoundTripBound(per_command=4)

    def client_version(self) -> str:
        return f"Python {platform.python_version()}, {ssl.OPENSSL_VERSION}"

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        session = _TlsResumeSession(target)
        await asyncio.to_thread(session.get, "show clock", require_resumption=False)
        yield session


RESTCONF_NATIVE_PATH = "/restconf/data/Cisco-IOS-XE-native:native"
RESTCONF_JSON = "application/yang-data+json"


def check_restconf(status: int, body: str) -> str:
    """The body of a RESTCONF ``GET`` of the native tree, or IterationError: HTTP 200 and
    an RFC 7951 JSON document whose top-level member is ``Cisco-IOS-XE-native:native``."""
    if status != httpx.codes.OK:
        raise IterationError(f"restconf: HTTP {status}: {first_line(body)}")
    try:
        document = json.loads(body)
    except ValueError as exc:
        raise IterationError(f"restconf: not JSON: {exc}") from exc
    if not isinstance(document, dict) or "Cisco-IOS-XE-native:native" not in document:
        raise IterationError(f"restconf: no Cisco-IOS-XE-native:native in {body[:80]!r}")
    return body


class _RestconfSession:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        outputs = []
        for _ in commands:
            response = await self._client.get(
                RESTCONF_NATIVE_PATH,
                headers={"Accept": RESTCONF_JSON},
                extensions=trace_extension(self.phases),
            )
            outputs.append(check_restconf(response.status_code, response.text))
        return outputs


class HttpsRestconfGet(Mode):
    """RESTCONF (RFC 8040) on a kept HTTP/1.1 keep-alive connection: per command of the
    run one ``GET /restconf/data/Cisco-IOS-XE-native:native`` (JSON, RFC 7951), each after
    the previous reply; the command text itself is not sent (n has the meaning it has in
    the CLI modes, as in the NETCONF modes).

    Lower bound per iteration, n round trips (HTTP/1.1 clients do not pipeline). Expected
    with httpx: n (the connection is opened by the warm-up). An iteration fails on a
    status other than 200 or a body that is not the native tree as JSON.
    """

    name = "https/restconf-get"
    transport = Transport.HTTPS
    client = "httpx"
    description = (
        "httpx; one keep-alive client kept; per command one RESTCONF "
        "GET /restconf/data/Cisco-IOS-XE-native:native (JSON), each after the previous reply"
    )
    min_bound = ONE_PER_COMMAND
    expected_bound = ONE_PER_COMMAND

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with new_client(target, keep_alive=True) as client:
            yield _RestconfSession(client)
