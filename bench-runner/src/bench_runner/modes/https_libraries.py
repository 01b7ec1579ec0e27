"""HTTPS modes with requests, the library most scripts use. requests is synchronous, so
each iteration runs in a worker thread; its own timeout bounds a stuck request."""

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import requests
import urllib3

from bench_runner.modes.base import ONE_PER_COMMAND, RoundTripBound, Session, Target
from bench_runner.modes.https import (
    REQUEST_TIMEOUT_S,
    RESTCONF_JSON,
    RESTCONF_NATIVE_PATH,
    HttpsBatch,
    HttpsFreshConnection,
    HttpsKeepAlive,
    HttpsRestconfGet,
    check_restconf,
    exec_path,
)
from bench_runner.validation import IterationError, failure_summary

# verify=False is deliberate (self-signed, regenerated certificate on an isolated lab
# network); the warning it triggers on every request would only flood the output.
urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)


def requests_get(http: requests.Session, target: Target, commands: Sequence[str]) -> str:
    try:
        # verify=False: self-signed, regenerated certificate (trust_env is off, so no CA
        # bundle from the environment overrides it).
        response = http.get(
            f"https://{target.host}:{target.https_port}{exec_path(commands)}",
            timeout=REQUEST_TIMEOUT_S,
            verify=False,
        )
    except requests.RequestException as exc:
        raise IterationError(f"{'/'.join(commands)}: {type(exc).__name__}: {exc}") from exc
    if response.status_code != requests.codes.ok:
        raise IterationError(
            f"{'/'.join(commands)}: HTTP {response.status_code}: {failure_summary(response.text)}"
        )
    return response.text


def new_session(target: Target, *, keep_alive: bool) -> requests.Session:
    http = requests.Session()
    http.auth = (target.username, target.password)
    http.trust_env = False  # no proxy or CA bundle from the environment: lab traffic only
    if not keep_alive:
        http.headers["Connection"] = "close"
    return http


class _RequestsSession:
    def __init__(self, target: Target, *, keep_alive: bool, batch: bool) -> None:
        self._target = target
        self._http = new_session(target, keep_alive=keep_alive)
        self._batch = batch

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        if self._batch:
            return [requests_get(self._http, self._target, commands)]
        return [requests_get(self._http, self._target, [command]) for command in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)

    def close(self) -> None:
        self._http.close()


@asynccontextmanager
async def _requests_session(
    target: Target, *, keep_alive: bool, batch: bool
) -> AsyncIterator[Session]:
    session = _RequestsSession(target, keep_alive=keep_alive, batch=batch)
    try:
        yield session
    finally:
        session.close()


class RequestsFreshConnection(HttpsFreshConnection):
    """requests: a new TCP + TLS connection per command (``Connection: close``). Lower bound
    3 round trips per command. Expected 3 per command: TCP, TLS 1.3 and the request, 3
    exchanges per command on the wire (README); added delay 15.4 and 18.2 for 5 commands in
    two runs, the excess being urllib3's CPU time."""

    client = "requests"
    floor = False
    description = "requests; a new TCP + TLS connection per command (Connection: close)"
    expected_bound = RoundTripBound(per_command=3)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _requests_session(target, keep_alive=False, batch=False) as session:
            yield session


class RequestsKeepAlive(HttpsKeepAlive):
    """requests: one Session kept (keep-alive pool), one GET per command. Lower bound 1
    round trip per command. Expected n: one exchange per command, on the wire and as added
    delay (5.2 for 5; README)."""

    client = "requests"
    floor = False
    description = "requests; one Session kept (keep-alive), one GET per command"
    expected_bound = ONE_PER_COMMAND

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _requests_session(target, keep_alive=True, batch=False) as session:
            yield session


class RequestsBatch(HttpsBatch):
    """requests: one Session kept, one GET /admin/exec/cmd1/cmd2/... per iteration. Lower
    bound 1 round trip per iteration. Expected 1: one request per iteration, 1 on the wire,
    1.1 as added delay (README)."""

    client = "requests"
    floor = False
    description = "requests; one Session kept, one GET carrying every command"
    expected_bound = RoundTripBound(fixed=1)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _requests_session(target, keep_alive=True, batch=True) as session:
            yield session


class _RequestsRestconfSession:
    def __init__(self, target: Target) -> None:
        self._url = f"https://{target.host}:{target.https_port}{RESTCONF_NATIVE_PATH}"
        self._http = new_session(target, keep_alive=True)

    def get(self) -> str:
        try:
            response = self._http.get(
                self._url,
                headers={"Accept": RESTCONF_JSON},
                timeout=REQUEST_TIMEOUT_S,
                verify=False,
            )
        except requests.RequestException as exc:
            raise IterationError(f"restconf: {type(exc).__name__}: {exc}") from exc
        return check_restconf(response.status_code, response.text)

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        return [self.get() for _ in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)

    def close(self) -> None:
        self._http.close()


class RequestsRestconfGet(HttpsRestconfGet):
    """requests: one Session kept (keep-alive), per command one RESTCONF GET of the native
    tree as JSON. Lower bound n round trips per iteration. Expected n: one exchange per
    command, 5 on the wire and 5.1 as added delay for 5 (README)."""

    client = "requests"
    floor = False
    description = (
        "requests; one Session kept (keep-alive), per command one RESTCONF "
        "GET /restconf/data/Cisco-IOS-XE-native:native (JSON)"
    )
    expected_bound = ONE_PER_COMMAND

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        session = _RequestsRestconfSession(target)
        try:
            yield session
        finally:
            session.close()
