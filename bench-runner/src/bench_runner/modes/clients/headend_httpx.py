"""httpx (floor client) against the head-end: one POST per iteration carries every command
for the device, which the head-end runs over SSH across the LAN (docs/relays.md), on a new
HTTPS connection per iteration or on one kept (HTTP/1.1 keep-alive), with the head-end's SSH
connection to the device new per request or pooled.

The head-end says with every answer what the LAN hop took (clients/headend_answer.py): the
session makes it into phases (where an iteration's time went, hop by hop) and the LAN's round
trips.
"""

import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Literal
from urllib.parse import quote

import httpx

from bench_runner.alpn import AlpnLog
from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.headend_answer import HeadendAnswer, HopLedger
from bench_runner.modes.clients.httpx_api import https_client, note_alpn
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError, failure_summary

SshUse = Literal["fresh", "pooled"]


def new_client(target: Target, *, keep_alive: bool) -> httpx.AsyncClient:
    """A client of the head-end's API, with the head-end's credentials (not the device's)."""
    relay = target.via()
    return https_client(
        f"https://{target.headend()}:{relay.headend_https_port}",
        httpx.BasicAuth(relay.headend_username, relay.headend_password),
        keep_alive=keep_alive,
    )


def exec_path(device: str, ssh: SshUse) -> str:
    return f"/devices/{quote(device, safe='')}/exec?ssh={ssh}"


class _ProxySession:
    def __init__(self, client: httpx.AsyncClient, device: str, ssh: SshUse) -> None:
        self._client = client
        self._path = exec_path(device, ssh)
        self.phases = PhaseTimer()
        self.alpn = AlpnLog()
        self._ledger = HopLedger(self.phases)

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        self._ledger.start()
        started = time.perf_counter()
        response = await self._client.post(self._path, json={"commands": list(commands)})
        wall_ms = (time.perf_counter() - started) * 1000.0
        note_alpn(self.alpn, response)
        if response.status_code != httpx.codes.OK:
            reason = failure_summary(response.text)
            raise IterationError(f"head-end: HTTP {response.status_code}: {reason}")
        return self._ledger.read(HeadendAnswer.from_json(response.text), wall_ms, commands)

    def take_lan_round_trips(self) -> int | None:
        return self._ledger.take_lan_round_trips()


@asynccontextmanager
async def posts(
    mode: Mode, target: Target, *, keep_alive: bool, ssh: SshUse
) -> AsyncIterator[Session]:
    """Per iteration one ``POST /devices/<device>/exec?ssh=<ssh>`` with every command, on a
    new TCP + TLS connection or on one kept (``keep_alive``)."""
    async with new_client(target, keep_alive=keep_alive) as client:
        yield _ProxySession(client, target.host, ssh)
