"""aioquic against the device's HTTP/3 API: ``GET /admin/exec/<command>`` on a new QUIC
connection per command (a full handshake; a handshake resuming the newest session ticket;
or one resuming it with the GET in the first flight as 0-RTT early data), or on one
connection kept across iterations (a GET per command, one GET with every command, or every
command's GET at once, each on its own stream).

Phases: ``tls_handshake`` is the QUIC handshake (the TLS 1.3 handshake in QUIC's CRYPTO
frames: there is no TCP connect before it); with 0-RTT the GET leaves before the handshake
completes, so the handshake overlaps ``send_request`` and ``receive_headers`` and has no
phase of its own. ``close`` is sending CONNECTION_CLOSE (aioquic_connection.py)."""

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from enum import StrEnum

from aioquic.tls import SessionTicket

from bench_runner.alpn import AlpnLog
from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.aioquic_connection import (
    Answer,
    Connections,
    H3ClientProtocol,
    get,
)
from bench_runner.modes.clients.device_api import HTTP_OK, exec_path
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError, failure_summary

HTTP_TOO_EARLY = 425
TICKET_WAIT_S = 5.0
"""How long the session's first connection waits for the server's first ticket."""
FIRST_COMMAND = "show clock"
"""What the session's first, unmeasured connection asks, to be issued a ticket."""


class Resumption(StrEnum):
    """What a new connection offers the server."""

    NONE = "none"
    """A full handshake; no ticket is asked for."""
    TICKET = "ticket"
    """The newest ticket, without early data."""
    EARLY_DATA = "early-data"
    """The newest ticket, with the GET as 0-RTT early data."""


def checked_body(what: str, answer: Answer) -> str:
    """The answer's body, or IterationError for a status other than 200."""
    if answer.status == HTTP_TOO_EARLY:
        raise IterationError(f"{what}: HTTP 425 Too Early: the server refused the early data")
    if answer.status != HTTP_OK:
        raise IterationError(f"{what}: HTTP {answer.status}: {failure_summary(answer.body)}")
    return answer.body


class _Tickets:
    """The newest session ticket the server issued (aioquic's session_ticket_handler)."""

    def __init__(self) -> None:
        self.newest: SessionTicket | None = None
        self._issued = asyncio.Event()

    def __call__(self, ticket: SessionTicket) -> None:
        self.newest = ticket
        self._issued.set()

    async def first(self) -> SessionTicket:
        try:
            async with asyncio.timeout(TICKET_WAIT_S):
                await self._issued.wait()
        except TimeoutError:
            raise IterationError(
                f"the server issued no session ticket within {TICKET_WAIT_S:g} s"
            ) from None
        assert self.newest is not None  # set before the event
        return self.newest


class _ConnectionPerCommand:
    """A new connection per command, offering what ``resumption`` says; an iteration
    fails when the server did not resume the ticket or did not accept the early data."""

    def __init__(self, target: Target, connections: Connections, resumption: Resumption) -> None:
        self._target = target
        self._connections = connections
        self._resumption = resumption
        self._tickets = _Tickets()
        self.phases = PhaseTimer()
        self.alpn = AlpnLog()

    async def open(self) -> None:
        """Fetches the first ticket on an unmeasured connection (resuming modes only);
        0-RTT needs one that allows early data."""
        if self._resumption is Resumption.NONE:
            return
        await self.get(FIRST_COMMAND, first=True)
        ticket = await self._tickets.first()
        if self._resumption is Resumption.EARLY_DATA and ticket.max_early_data_size is None:
            raise IterationError("the server's session ticket allows no early data")

    def _offered(self) -> SessionTicket | None:
        ticket = self._tickets.newest
        if ticket is None or self._resumption is not Resumption.TICKET:
            return ticket
        # aioquic offers early data whenever the ticket allows it; a plain resumption must not.
        return replace(ticket, max_early_data_size=None)

    async def get(self, command: str, *, first: bool = False) -> str:
        phases = self.phases
        early = self._resumption is Resumption.EARLY_DATA and not first
        started = time.perf_counter()
        protocol = await self._connections.dial(
            ticket=self._offered(),
            on_ticket=None if self._resumption is Resumption.NONE else self._tickets,
            wait_connected=not early,
        )
        try:
            if not early:
                phases.add("tls_handshake", time.perf_counter() - started)
                started = time.perf_counter()
            answer = await get(protocol, self._target, exec_path([command]), phases, since=started)
        finally:
            with phases.measure("close"):
                self._connections.close(protocol)
        self.alpn.note(protocol, protocol.alpn)
        body = checked_body(command, answer)
        if not first:
            self._check_resumption(command, protocol)
        return body

    def _check_resumption(self, command: str, protocol: H3ClientProtocol) -> None:
        handshake = protocol.handshake
        if handshake is None:
            raise IterationError(f"{command}: answered before the QUIC handshake completed")
        if self._resumption is not Resumption.NONE and not handshake.session_resumed:
            raise IterationError(f"{command}: TLS session not resumed (ticket not accepted)")
        if self._resumption is Resumption.EARLY_DATA and not handshake.early_data_accepted:
            raise IterationError(
                f"{command}: early data not accepted: the GET waited for the handshake"
            )

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return [await self.get(command) for command in commands]


class _KeptConnection:
    """One connection for every iteration: a GET per command, or one with every command
    (``batch``). A connection that ended fails every later iteration with the reason."""

    def __init__(self, target: Target, protocol: H3ClientProtocol, *, batch: bool) -> None:
        self._target = target
        self._protocol = protocol
        self._batch = batch
        self.phases = PhaseTimer()
        self.alpn = AlpnLog()
        self.alpn.note(protocol, protocol.alpn)

    async def _get(self, commands: Sequence[str]) -> str:
        answer = await get(self._protocol, self._target, exec_path(commands), self.phases)
        return checked_body("/".join(commands), answer)

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        if self._batch:
            return [await self._get(commands)]
        return [await self._get([command]) for command in commands]


class _ConcurrentStreams:
    """Every command's GET at once, each on its own stream of the one kept connection. No
    phases: the requests are in flight together, so their steps overlap."""

    def __init__(self, target: Target, protocol: H3ClientProtocol) -> None:
        self._target = target
        self._protocol = protocol
        self.alpn = AlpnLog()
        self.alpn.note(protocol, protocol.alpn)

    async def _get(self, command: str) -> str:
        answer = await get(self._protocol, self._target, exec_path([command]))
        return checked_body(command, answer)

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return list(await asyncio.gather(*(self._get(command) for command in commands)))


@asynccontextmanager
async def connection_per_command(
    mode: Mode, target: Target, *, resumption: str
) -> AsyncIterator[Session]:
    """A new QUIC connection per command (``resumption``: none, ticket or early-data); a
    resuming session is issued its first ticket before the warm-up (not measured)."""
    async with Connections(target) as connections:
        session = _ConnectionPerCommand(target, connections, Resumption(resumption))
        await session.open()
        yield session


@asynccontextmanager
async def kept_connection(mode: Mode, target: Target, *, batch: bool) -> AsyncIterator[Session]:
    """One QUIC connection, its handshake done before the warm-up (not measured)."""
    async with Connections(target) as connections:
        yield _KeptConnection(target, await connections.dial(), batch=batch)


@asynccontextmanager
async def concurrent_streams(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One QUIC connection, its handshake done before the warm-up (not measured); every
    command of an iteration on its own stream, all at once."""
    async with Connections(target) as connections:
        yield _ConcurrentStreams(target, await connections.dial())
