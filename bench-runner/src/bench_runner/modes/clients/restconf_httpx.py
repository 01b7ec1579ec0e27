"""httpx (floor client) against the device's RESTCONF: per command a GET of that command's
interface in JSON or XML, on a new TCP + TLS connection per command or on one kept, and one
PATCH of the native tree carrying every command's description write. The interfaces are
discovered before the warm-up, and the descriptions restored after the mode with one YANG
Patch, neither measured."""

import secrets
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import httpx

from bench_runner.alpn import AlpnLog
from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.http_phases import trace_extension
from bench_runner.modes.clients.httpx_api import new_client, note_alpn
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
from bench_runner.modes.mode import Mode
from bench_runner.modes.row import RestconfEncoding
from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError


async def discover(client: httpx.AsyncClient, alpn: AlpnLog) -> dict[Interface, str | None]:
    """The device's interfaces in running-config order, with their descriptions (its
    connection counted in ``alpn`` as every connection of the mode is)."""
    response = await client.get(INTERFACES_PATH, headers={"Accept": MEDIA["xml"]})
    note_alpn(alpn, response)
    if response.status_code != httpx.codes.OK:
        raise IterationError(f"restconf interfaces: HTTP {response.status_code}")
    return interfaces_from_xml(response.text)


class _ReadSession:
    def __init__(
        self,
        client: httpx.AsyncClient,
        interfaces: Sequence[Interface],
        encoding: RestconfEncoding,
        alpn: AlpnLog,
    ) -> None:
        self._client = client
        self._interfaces = interfaces
        self._encoding: RestconfEncoding = encoding
        self.phases = PhaseTimer()
        self.alpn = alpn

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        outputs = []
        for command in range(1, len(commands) + 1):
            interface = interface_for(self._interfaces, command)
            response = await self._client.get(
                interface.restconf_path(),
                headers={"Accept": MEDIA[self._encoding]},
                extensions=trace_extension(self.phases),
            )
            note_alpn(self.alpn, response)
            outputs.append(
                check_read(interface, self._encoding, response.status_code, response.text)
            )
        return outputs


class _PatchSession:
    def __init__(
        self, client: httpx.AsyncClient, interfaces: Sequence[Interface], alpn: AlpnLog
    ) -> None:
        self._client = client
        self._interfaces = interfaces
        self._token = secrets.token_hex(4)
        self._iterations = 0
        self.phases = PhaseTimer()
        self.alpn = alpn

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        self._iterations += 1
        writes = [
            (
                interface_for(self._interfaces, command),
                description_value(self._token, self._iterations, command),
            )
            for command in range(1, len(commands) + 1)
        ]
        response = await self._client.patch(
            NATIVE_PATH,
            content=patch_body(writes),
            headers={"Content-Type": MEDIA["json"]},
            extensions=trace_extension(self.phases),
        )
        note_alpn(self.alpn, response)
        return [check_write(response.status_code, response.text, len(writes))]


@asynccontextmanager
async def reads(mode: Mode, target: Target, *, keep_alive: bool) -> AsyncIterator[Session]:
    """Per command a GET of its interface in the mode's encoding, on a new TCP + TLS
    connection per request or on one kept (``keep_alive``)."""
    alpn = AlpnLog()
    async with new_client(target, keep_alive=keep_alive) as client:
        interfaces = list(await discover(client, alpn))
        yield _ReadSession(client, interfaces, mode.restconf_encoding(), alpn)


@asynccontextmanager
async def patch_batch(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Per iteration one PATCH of the native tree with every command's description; the
    originals read before and restored after with one YANG Patch."""
    alpn = AlpnLog()
    async with new_client(target, keep_alive=True) as client:
        originals = await discover(client, alpn)
        try:
            yield _PatchSession(client, list(originals), alpn)
        finally:
            response = await client.patch(
                NATIVE_PATH,
                content=restore_patch(originals),
                headers={"Content-Type": YANG_PATCH_JSON, "Accept": MEDIA["json"]},
            )
            note_alpn(alpn, response)
            check_restored(response.status_code, response.text)
