"""httpx (floor client) against the device's HTTPS API: GETs of /admin/exec per command or
with every command, on a fresh connection per request or one kept (HTTP/1.1 keep-alive),
concurrent GETs over a kept pool, RESTCONF GETs, and bulk downloads."""

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import httpx

from bench_runner.alpn import AlpnLog
from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.device_api import (
    REQUEST_TIMEOUT_S,
    RESTCONF_JSON,
    RESTCONF_NATIVE_PATH,
    bulk_path,
    check_download,
    check_restconf,
    check_status,
    exec_path,
)
from bench_runner.modes.clients.http_phases import trace_extension
from bench_runner.modes.mode import Mode
from bench_runner.payloads import BULK_BYTES
from bench_runner.phases import PhaseTimer
from bench_runner.tls import tls13_context
from bench_runner.validation import IterationError, failure_summary


def new_client(target: Target, *, keep_alive: bool) -> httpx.AsyncClient:
    return https_client(
        f"https://{target.host}:{target.https_port}",
        httpx.BasicAuth(target.username, target.password),
        keep_alive=keep_alive,
    )


def https_client(base_url: str, auth: httpx.Auth, *, keep_alive: bool) -> httpx.AsyncClient:
    """TLS 1.3, the certificate not verified (the lab's are self-signed); a connection kept
    across requests, or closed after each response (``Connection: close``)."""
    # max_keepalive_connections=0 makes the pool close each connection after its response.
    limits = httpx.Limits(max_keepalive_connections=None if keep_alive else 0)
    return httpx.AsyncClient(
        base_url=base_url,
        auth=auth,
        verify=tls13_context(),
        limits=limits,
        headers=None if keep_alive else {"Connection": "close"},
        timeout=REQUEST_TIMEOUT_S,
        trust_env=False,  # lab traffic never goes through a proxy from the environment
    )


def note_alpn(log: AlpnLog, response: httpx.Response) -> None:
    """Count the response's connection (httpcore's network stream, one per connection)
    with the ALPN protocol its TLS object selected, the first time it answers."""
    stream = response.extensions.get("network_stream")
    if stream is not None and not log.known(stream):
        log.note(stream, stream.get_extra_info("ssl_object"))


async def get_exec(
    client: httpx.AsyncClient,
    commands: Sequence[str],
    alpn: AlpnLog,
    phases: PhaseTimer | None = None,
) -> str:
    response = await client.get(exec_path(commands), extensions=trace_extension(phases))
    note_alpn(alpn, response)
    if response.status_code != httpx.codes.OK:
        reason = failure_summary(response.text)
        raise IterationError(f"{'/'.join(commands)}: HTTP {response.status_code}: {reason}")
    return response.text


class _ExecSession:
    def __init__(self, client: httpx.AsyncClient, *, batch: bool) -> None:
        self._client = client
        self._batch = batch
        self.phases = PhaseTimer()
        self.alpn = AlpnLog()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        if self._batch:
            return [await get_exec(self._client, commands, self.alpn, self.phases)]
        return [
            await get_exec(self._client, [command], self.alpn, self.phases) for command in commands
        ]


class _ConcurrentSession:
    """No phases: the requests are in flight together, so their steps overlap and would
    add up to more than the wall time."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client
        self.alpn = AlpnLog()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return list(
            await asyncio.gather(
                *(get_exec(self._client, [command], self.alpn) for command in commands)
            )
        )


class _RestconfSession:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client
        self.phases = PhaseTimer()
        self.alpn = AlpnLog()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        outputs = []
        for _ in commands:
            response = await self._client.get(
                RESTCONF_NATIVE_PATH,
                headers={"Accept": RESTCONF_JSON},
                extensions=trace_extension(self.phases),
            )
            note_alpn(self.alpn, response)
            outputs.append(check_restconf(response.status_code, response.text))
        return outputs


class _BulkSession:
    """The body is streamed and counted, never held (1 GB)."""

    def __init__(self, client: httpx.AsyncClient, path: str, expected: int) -> None:
        self._client = client
        self._path = path
        self._expected = expected
        self.phases = PhaseTimer()
        self.alpn = AlpnLog()

    async def open(self) -> None:
        """Opens the kept connection (TCP, TLS, authenticated HEAD)."""
        response = await self._client.head(self._path)
        note_alpn(self.alpn, response)
        check_status(self._path, response.status_code)

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        received = 0
        async with self._client.stream(
            "GET", self._path, extensions=trace_extension(self.phases)
        ) as response:
            note_alpn(self.alpn, response)
            async for chunk in response.aiter_raw():
                received += len(chunk)
        return [check_download(self._path, response.status_code, received, self._expected)]


@asynccontextmanager
async def exec_gets(
    mode: Mode, target: Target, *, keep_alive: bool, batch: bool
) -> AsyncIterator[Session]:
    """``GET /admin/exec/<command>`` per command (``batch``: one GET with every command),
    on a new TCP + TLS connection per request or on one kept (``keep_alive``)."""
    async with new_client(target, keep_alive=keep_alive) as client:
        yield _ExecSession(client, batch=batch)


@asynccontextmanager
async def concurrent_gets(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Every command's GET in flight at once over a kept keep-alive pool."""
    async with new_client(target, keep_alive=True) as client:
        yield _ConcurrentSession(client)


@asynccontextmanager
async def restconf_gets(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Per command one RESTCONF GET of the native tree on a kept connection."""
    async with new_client(target, keep_alive=True) as client:
        yield _RestconfSession(client)


@asynccontextmanager
async def bulk_download(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Per iteration one ``GET /bulk/<size>`` on a connection a HEAD opened beforehand."""
    async with new_client(target, keep_alive=True) as client:
        path = bulk_path(mode.bulk_size())
        session = _BulkSession(client, path, BULK_BYTES[mode.bulk_size()])
        await session.open()
        yield session
