"""``https/bulk``: the direct transfer that ``tunnel/bulk`` is compared with. The same
payloads (``GET /bulk/10M``, ``/100M``, ``/1G`` on the device's HTTPS API, behind nginx
like every API route) on one HTTP/1.1 keep-alive connection kept across iterations, with
httpx (floor) and requests. The body is streamed and counted, never held (1 GB)."""

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import httpx
import requests

from bench_runner.modes.base import RoundTripBound, Session, Target, Transport
from bench_runner.modes.bulk import BULK_BYTES, BulkDownload
from bench_runner.modes.http_phases import trace_extension
from bench_runner.modes.https import REQUEST_TIMEOUT_S, new_client
from bench_runner.modes.https_libraries import new_session
from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError

# requests' iter_content yields chunks of this size (its default is 1 byte); httpx yields
# what it reads from the socket (64 KiB).
REQUESTS_CHUNK_BYTES = 256 << 10


def bulk_path(size: str) -> str:
    return f"/bulk/{size}"


def check_status(path: str, status: int) -> None:
    if status != httpx.codes.OK:
        raise IterationError(f"{path}: HTTP {status}")


def check_download(path: str, status: int, received: int, expected: int) -> str:
    """What the iteration returns for validation, or IterationError: HTTP 200 and exactly
    ``expected`` body bytes."""
    check_status(path, status)
    if received != expected:
        raise IterationError(f"{path}: {received} of {expected} bytes")
    return f"{received} bytes"


class HttpsBulk(BulkDownload):
    """One download of ``size`` bytes per iteration (``GET /bulk/10M``, ``/100M`` or
    ``/1G``) from the device's HTTPS API on one HTTP/1.1 keep-alive connection, opened
    before the warm-up (a ``HEAD`` of the same path, not measured); the commands are not
    used. An iteration fails unless the status is 200 and exactly ``size`` bytes arrive.
    The direct counterpart of ``tunnel/bulk``: the same payload, without the SSH channel.

    Lower bound per iteration, 1 round trip: the request and its response on the open
    connection (no TCP or TLS handshake, no channel to open: ``tunnel/bulk`` pays 2); the
    transfer time on top is the size over the path's bandwidth (TCP's window, netem's
    rate). Expected with httpx: 1 by the protocol, as ``tunnel/bulk`` counts its 2. Counted
    at 30 ms: 1 round trip per iteration on the wire (the request written once, then only
    ACKs while the body streams in) and one RTT waiting for the headers (phase
    ``receive_headers`` 32 ms); the rest of the added delay (1.4 RTT for 10 MB, 4.5 for
    100 MB) is the transfer, TCP's window and bandwidth, not exchanges (README).
    """

    name = "https/bulk"
    transport = Transport.HTTPS
    client = "httpx"
    description = (
        "httpx; one HTTP/1.1 keep-alive connection kept; per iteration one "
        "GET /bulk/<size> from the device's HTTPS API, streamed and counted "
        "(vs tunnel/bulk)"
    )
    min_bound = RoundTripBound(fixed=1)
    expected_bound = RoundTripBound(fixed=1)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with new_client(target, keep_alive=True) as client:
            path = bulk_path(self.size)
            check_status(path, (await client.head(path)).status_code)
            yield _HttpxBulkSession(client, path, BULK_BYTES[self.size])


class _HttpxBulkSession:
    def __init__(self, client: httpx.AsyncClient, path: str, expected: int) -> None:
        self._client = client
        self._path = path
        self._expected = expected
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        received = 0
        async with self._client.stream(
            "GET", self._path, extensions=trace_extension(self.phases)
        ) as response:
            async for chunk in response.aiter_raw():
                received += len(chunk)
        return [check_download(self._path, response.status_code, received, self._expected)]


class RequestsBulk(HttpsBulk):
    """requests: one Session kept (keep-alive pool, its connection opened by a ``HEAD``
    before the warm-up); per iteration one ``GET /bulk/<size>`` with ``stream=True``, read
    with ``iter_content``. Lower bound 1 round trip per iteration. Expected 1, counted on
    the wire at 30 ms: one request on the kept connection, then only ACKs while the body
    streams in (README). The added delay (3.3 RTT for 10 MB, 21 for 100 MB) is the transfer:
    requests reads 345 MB/s at local, TCP's window allows ~100 MB/s at 30 ms."""

    client = "requests"
    floor = False
    description = (
        "requests; one Session kept (keep-alive); per iteration one "
        "GET /bulk/<size> with stream=True, counted with iter_content"
    )
    expected_bound = RoundTripBound(fixed=1)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        session = _RequestsBulkSession(target, bulk_path(self.size), BULK_BYTES[self.size])
        try:
            await asyncio.to_thread(session.open)
            yield session
        finally:
            session.close()


class _RequestsBulkSession:
    def __init__(self, target: Target, path: str, expected: int) -> None:
        self._url = f"https://{target.host}:{target.https_port}{path}"
        self._path = path
        self._expected = expected
        self._http = new_session(target, keep_alive=True)

    def open(self) -> None:
        """Opens the kept connection (TCP, TLS, authenticated HEAD)."""
        try:
            response = self._http.head(self._url, timeout=REQUEST_TIMEOUT_S, verify=False)
        except requests.RequestException as exc:
            raise IterationError(f"{self._path}: {type(exc).__name__}: {exc}") from exc
        check_status(self._path, response.status_code)

    def download(self) -> str:
        received = 0
        try:
            # verify=False: self-signed, regenerated certificate (see https_libraries).
            with self._http.get(
                self._url, stream=True, timeout=REQUEST_TIMEOUT_S, verify=False
            ) as response:
                for chunk in response.iter_content(REQUESTS_CHUNK_BYTES):
                    received += len(chunk)
        except requests.RequestException as exc:
            raise IterationError(f"{self._path}: {type(exc).__name__}: {exc}") from exc
        return check_download(self._path, response.status_code, received, self._expected)

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return [await asyncio.to_thread(self.download)]

    def close(self) -> None:
        self._http.close()
