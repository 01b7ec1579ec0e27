"""requests, the library most scripts use, against the device's HTTPS API: the exec GETs,
RESTCONF and bulk downloads as httpx does them. requests is synchronous, so each iteration
runs in a worker thread; its own timeout bounds a stuck request."""

import asyncio
import ssl
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import requests
import urllib3
from requests.adapters import HTTPAdapter

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
from bench_runner.modes.mode import Mode
from bench_runner.payloads import BULK_BYTES
from bench_runner.validation import IterationError, failure_summary

# verify=False is deliberate (self-signed, regenerated certificate on an isolated lab
# network); the warning it triggers on every request would only flood the output.
urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)

# iter_content yields chunks of this size (its default is 1 byte); httpx yields what it
# reads from the socket (64 KiB).
CHUNK_BYTES = 256 << 10


class AlpnNotingAdapter(HTTPAdapter):
    """requests' adapter whose HTTPS connections each note, once connected, the ALPN
    protocol their TLS socket selected. Read at the connect, not from a response: with
    ``Connection: close`` http.client hands the socket to the response and the connection
    object no longer holds it."""

    def __init__(self, log: AlpnLog) -> None:
        self._log = log
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        log = self._log

        class NotingConnection(urllib3.connection.HTTPSConnection):
            def connect(self) -> None:
                super().connect()
                if isinstance(self.sock, ssl.SSLSocket):
                    log.note(self.sock, self.sock)

        class NotingPool(urllib3.HTTPSConnectionPool):
            ConnectionCls = NotingConnection

        self.poolmanager.pool_classes_by_scheme = {
            **self.poolmanager.pool_classes_by_scheme,
            "https": NotingPool,
        }


def new_session(
    target: Target, *, keep_alive: bool, alpn: AlpnLog | None = None
) -> requests.Session:
    """A session for the device's API; with ``alpn``, each HTTPS connection it opens
    notes its ALPN protocol there."""
    http = requests.Session()
    if alpn is not None:
        http.mount("https://", AlpnNotingAdapter(alpn))
    http.auth = (target.username, target.password)
    http.trust_env = False  # no proxy or CA bundle from the environment: lab traffic only
    if not keep_alive:
        http.headers["Connection"] = "close"
    return http


class _HttpSession:
    """One requests Session in a worker thread; verify=False on every request (the
    self-signed, regenerated certificate; trust_env is off, so no CA bundle from the
    environment overrides it)."""

    def __init__(self, target: Target, *, keep_alive: bool) -> None:
        self._base = f"https://{target.host}:{target.https_port}"
        self.alpn = AlpnLog()
        self._http = new_session(target, keep_alive=keep_alive, alpn=self.alpn)

    def get(
        self, path: str, what: str, *, accept: str | None = None, stream: bool = False
    ) -> requests.Response:
        headers = {"Accept": accept} if accept is not None else None
        try:
            return self._http.get(
                self._base + path,
                headers=headers,
                stream=stream,
                timeout=REQUEST_TIMEOUT_S,
                verify=False,
            )
        except requests.RequestException as exc:
            raise IterationError(f"{what}: {type(exc).__name__}: {exc}") from exc

    def close(self) -> None:
        self._http.close()


class _ExecSession(_HttpSession):
    def __init__(self, target: Target, *, keep_alive: bool, batch: bool) -> None:
        super().__init__(target, keep_alive=keep_alive)
        self._batch = batch

    def exec(self, commands: Sequence[str]) -> str:
        what = "/".join(commands)
        response = self.get(exec_path(commands), what)
        if response.status_code != requests.codes.ok:
            reason = failure_summary(response.text)
            raise IterationError(f"{what}: HTTP {response.status_code}: {reason}")
        return response.text

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        if self._batch:
            return [self.exec(commands)]
        return [self.exec([command]) for command in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


class _RestconfSession(_HttpSession):
    def restconf(self) -> str:
        response = self.get(RESTCONF_NATIVE_PATH, "restconf", accept=RESTCONF_JSON)
        return check_restconf(response.status_code, response.text)

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        return [self.restconf() for _ in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


class _BulkSession(_HttpSession):
    def __init__(self, target: Target, path: str, expected: int) -> None:
        super().__init__(target, keep_alive=True)
        self._path = path
        self._expected = expected

    def open(self) -> None:
        """Opens the kept connection (TCP, TLS, authenticated HEAD)."""
        try:
            response = self._http.head(
                self._base + self._path, timeout=REQUEST_TIMEOUT_S, verify=False
            )
        except requests.RequestException as exc:
            raise IterationError(f"{self._path}: {type(exc).__name__}: {exc}") from exc
        check_status(self._path, response.status_code)

    def download(self) -> str:
        received = 0
        with self.get(self._path, self._path, stream=True) as response:
            try:
                for chunk in response.iter_content(CHUNK_BYTES):
                    received += len(chunk)
            except requests.RequestException as exc:
                raise IterationError(f"{self._path}: {type(exc).__name__}: {exc}") from exc
        return check_download(self._path, response.status_code, received, self._expected)

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return [await asyncio.to_thread(self.download)]


@asynccontextmanager
async def exec_gets(
    mode: Mode, target: Target, *, keep_alive: bool, batch: bool
) -> AsyncIterator[Session]:
    """One GET per command (``batch``: one with every command), ``Connection: close`` on
    every request unless ``keep_alive``."""
    session = _ExecSession(target, keep_alive=keep_alive, batch=batch)
    try:
        yield session
    finally:
        session.close()


@asynccontextmanager
async def restconf_gets(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Per command one RESTCONF GET of the native tree on a kept connection."""
    session = _RestconfSession(target, keep_alive=True)
    try:
        yield session
    finally:
        session.close()


@asynccontextmanager
async def bulk_download(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Per iteration one ``GET /bulk/<size>`` with ``stream=True``, counted with
    ``iter_content``, on a connection a HEAD opened beforehand."""
    path = bulk_path(mode.bulk_size())
    session = _BulkSession(target, path, BULK_BYTES[mode.bulk_size()])
    try:
        await asyncio.to_thread(session.open)
        yield session
    finally:
        session.close()
