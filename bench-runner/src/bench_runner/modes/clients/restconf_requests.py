"""requests against the device's RESTCONF: what restconf_httpx does, with one Session in a
worker thread (``Connection: close`` on every request for a new connection per command);
its own timeout bounds a stuck request."""

import asyncio
import secrets
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import requests

from bench_runner.alpn import AlpnLog
from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.device_api import REQUEST_TIMEOUT_S
from bench_runner.modes.clients.native_interfaces import (
    INTERFACES_PATH,
    MEDIA,
    NATIVE_PATH,
    YANG_PATCH_JSON,
    Interface,
    check_read,
    check_restored,
    check_write,
    description_value,
    interface_for,
    interfaces_from_xml,
    patch_body,
    restore_patch,
)
from bench_runner.modes.clients.requests_api import new_session
from bench_runner.modes.mode import Mode
from bench_runner.modes.row import RestconfEncoding
from bench_runner.validation import IterationError


class _Restconf:
    """One requests Session for the device's RESTCONF; verify=False on every request (the
    self-signed, regenerated certificate; trust_env is off, so no CA bundle from the
    environment overrides it)."""

    def __init__(self, target: Target, *, keep_alive: bool) -> None:
        self._base = f"https://{target.host}:{target.https_port}"
        self.alpn = AlpnLog()
        self._http = new_session(target, keep_alive=keep_alive, alpn=self.alpn)

    def request(
        self, method: str, path: str, headers: dict[str, str], body: str | None = None
    ) -> requests.Response:
        try:
            return self._http.request(
                method,
                self._base + path,
                data=body,
                headers=headers,
                timeout=REQUEST_TIMEOUT_S,
                verify=False,
            )
        except requests.RequestException as exc:
            raise IterationError(f"restconf {method}: {type(exc).__name__}: {exc}") from exc

    def discover(self) -> dict[Interface, str | None]:
        response = self.request("GET", INTERFACES_PATH, {"Accept": MEDIA["xml"]})
        if response.status_code != requests.codes.ok:
            raise IterationError(f"restconf interfaces: HTTP {response.status_code}")
        return interfaces_from_xml(response.text)

    def close(self) -> None:
        self._http.close()


class _ReadSession:
    def __init__(
        self, http: _Restconf, interfaces: Sequence[Interface], encoding: RestconfEncoding
    ) -> None:
        self._http = http
        self._interfaces = interfaces
        self._encoding: RestconfEncoding = encoding
        self.alpn = http.alpn

    def run_sync(self, count: int) -> list[str]:
        outputs = []
        for command in range(1, count + 1):
            interface = interface_for(self._interfaces, command)
            response = self._http.request(
                "GET", interface.restconf_path(), {"Accept": MEDIA[self._encoding]}
            )
            outputs.append(
                check_read(interface, self._encoding, response.status_code, response.text)
            )
        return outputs

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, len(commands))


class _PatchSession:
    def __init__(self, http: _Restconf, interfaces: Sequence[Interface]) -> None:
        self._http = http
        self._interfaces = interfaces
        self._token = secrets.token_hex(4)
        self._iterations = 0
        self.alpn = http.alpn

    def run_sync(self, count: int) -> list[str]:
        self._iterations += 1
        writes = [
            (
                interface_for(self._interfaces, command),
                description_value(self._token, self._iterations, command),
            )
            for command in range(1, count + 1)
        ]
        response = self._http.request(
            "PATCH", NATIVE_PATH, {"Content-Type": MEDIA["json"]}, patch_body(writes)
        )
        return [check_write(response.status_code, response.text, len(writes))]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, len(commands))


@asynccontextmanager
async def reads(mode: Mode, target: Target, *, keep_alive: bool) -> AsyncIterator[Session]:
    """Per command a GET of its interface in the mode's encoding, ``Connection: close`` on
    every request unless ``keep_alive``."""
    http = _Restconf(target, keep_alive=keep_alive)
    try:
        interfaces = list(await asyncio.to_thread(http.discover))
        yield _ReadSession(http, interfaces, mode.restconf_encoding())
    finally:
        http.close()


@asynccontextmanager
async def patch_batch(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Per iteration one PATCH of the native tree with every command's description; the
    originals read before and restored after with one YANG Patch."""
    http = _Restconf(target, keep_alive=True)
    try:
        originals = await asyncio.to_thread(http.discover)
        try:
            yield _PatchSession(http, list(originals))
        finally:
            response = await asyncio.to_thread(
                http.request,
                "PATCH",
                NATIVE_PATH,
                {"Content-Type": YANG_PATCH_JSON, "Accept": MEDIA["json"]},
                restore_patch(originals),
            )
            check_restored(response.status_code, response.text)
    finally:
        http.close()
