"""httpx (floor client) against the head-end: one POST per iteration carries every command
for the device, which the head-end runs over SSH across the LAN (docs/relays.md), on a new
HTTPS connection per iteration or on one kept (HTTP/1.1 keep-alive), with the head-end's SSH
connection to the device new per request or pooled.

The head-end says with every answer what the LAN hop took: its SSH connect and commands,
its own time and the round trips it counted on its SSH connection. The session turns them
into phases (where an iteration's time went, hop by hop) and the LAN's round trips.
"""

import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Literal
from urllib.parse import quote

import httpx

from bench_runner.alpn import AlpnLog
from bench_runner.modes.base import Session, Target
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


class HeadendAnswer:
    """The head-end's answer to one POST: the outputs, and what its LAN hop took."""

    def __init__(self, body: object) -> None:
        if not isinstance(body, dict):
            raise IterationError("head-end: the answer is not a JSON object")
        try:
            outputs = body["outputs"]
            statuses = body["exit_statuses"]
            lan = body["lan"]
            self.outputs = [str(output) for output in outputs]
            self.exit_statuses = [int(status) for status in statuses]
            self.connect_ms = float(lan["connect_ms"])
            self.commands_ms = float(lan["commands_ms"])
            self.round_trips = int(lan["round_trips"])
            self.headend_ms = float(body["headend_ms"])
        except (KeyError, TypeError, ValueError) as exc:
            raise IterationError(f"head-end: malformed answer ({exc!r})") from exc

    def checked(self, commands: Sequence[str]) -> list[str]:
        """The outputs, one per command; IterationError for a command that failed."""
        if len(self.outputs) != len(commands) or len(self.exit_statuses) != len(commands):
            raise IterationError(
                f"head-end: {len(self.outputs)} outputs for {len(commands)} commands"
            )
        for command, output, status in zip(commands, self.outputs, self.exit_statuses, strict=True):
            if status != 0:
                raise IterationError(f"{command}: exit status {status}: {failure_summary(output)}")
        return self.outputs


def hop_phases(wall_ms: float, answer: HeadendAnswer) -> dict[str, float]:
    """The iteration's time by hop, in ms, never more than the whole: outside the head-end
    (the WAN and the client), in the head-end itself, its SSH connect across the LAN, and its
    commands across the LAN (the device's time included)."""
    # Each part is clipped to the one that holds it (clocks of two hosts, rounding).
    headend_ms = min(answer.headend_ms, wall_ms)
    lan_ms = min(answer.connect_ms + answer.commands_ms, headend_ms)
    connect_ms = min(answer.connect_ms, lan_ms)
    return {
        "wan_and_client": wall_ms - headend_ms,
        "headend": headend_ms - lan_ms,
        "lan_connect": connect_ms,
        "lan_commands": lan_ms - connect_ms,
    }


class _ProxySession:
    def __init__(self, client: httpx.AsyncClient, device: str, ssh: SshUse) -> None:
        self._client = client
        self._path = exec_path(device, ssh)
        self.phases = PhaseTimer()
        self.alpn = AlpnLog()
        self._lan_round_trips: int | None = None

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        self._lan_round_trips = None
        started = time.perf_counter()
        response = await self._client.post(self._path, json={"commands": list(commands)})
        wall_ms = (time.perf_counter() - started) * 1000.0
        note_alpn(self.alpn, response)
        if response.status_code != httpx.codes.OK:
            reason = failure_summary(response.text)
            raise IterationError(f"head-end: HTTP {response.status_code}: {reason}")
        answer = HeadendAnswer(response.json())
        outputs = answer.checked(commands)
        for name, ms in hop_phases(wall_ms, answer).items():
            self.phases.add(name, ms / 1000.0)
        self._lan_round_trips = answer.round_trips
        return outputs

    def take_lan_round_trips(self) -> int | None:
        counted, self._lan_round_trips = self._lan_round_trips, None
        return counted


@asynccontextmanager
async def posts(
    mode: Mode, target: Target, *, keep_alive: bool, ssh: SshUse
) -> AsyncIterator[Session]:
    """Per iteration one ``POST /devices/<device>/exec?ssh=<ssh>`` with every command, on a
    new TCP + TLS connection or on one kept (``keep_alive``)."""
    async with new_client(target, keep_alive=keep_alive) as client:
        yield _ProxySession(client, target.host, ssh)
