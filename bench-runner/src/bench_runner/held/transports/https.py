"""HTTPS held with httpx, the floor client: one client per held connection, kept alive
(HTTP/1.1, as https/keep-alive). HTTP has no session to open without a request, so the
connection opens with its first ``GET /admin/exec/show+clock``, and its setup is what
httpcore's trace reports for that request's TCP connect and TLS handshake; the request
itself is not an operation. One operation is that GET again on the kept connection."""

from importlib.metadata import version as distribution_version

import httpx

from bench_runner.alpn import AlpnLog
from bench_runner.held.transports import HELD_COMMAND
from bench_runner.modes.base import Target
from bench_runner.modes.clients.httpx_api import get_exec, new_client
from bench_runner.phases import PhaseTimer

SETUP_PHASES = ("tcp_connect", "tls_handshake")


class _Held:
    def __init__(self, client: httpx.AsyncClient, setup_s: float) -> None:
        self._client = client
        self._alpn = AlpnLog()
        self.setup_s = setup_s

    async def operate(self) -> None:
        await get_exec(self._client, [HELD_COMMAND], self._alpn)

    async def close(self) -> None:
        await self._client.aclose()


class HttpsTransport:
    client = "httpx"
    operation = f"GET of {HELD_COMMAND!r} (/admin/exec) on the kept connection"

    def __init__(self, target: Target) -> None:
        self._target = target
        self.port = target.https_port

    def version(self) -> str:
        return distribution_version("httpx")

    async def prepare(self, connections: int) -> None:
        return None

    async def open(self) -> _Held:
        client = new_client(self._target, keep_alive=True)
        phases = PhaseTimer()
        try:
            await get_exec(client, [HELD_COMMAND], AlpnLog(), phases)
        except BaseException:
            await client.aclose()
            raise
        taken = phases.take()
        setup_ms = sum(taken.get(phase, 0.0) for phase in SETUP_PHASES)
        return _Held(client, setup_ms / 1000.0)


def transport(target: Target) -> HttpsTransport:
    return HttpsTransport(target)
