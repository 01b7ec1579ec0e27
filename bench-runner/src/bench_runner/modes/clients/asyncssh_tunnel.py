"""asyncssh ``forward_local_port`` (``ssh -L``, floor client) on an ephemeral loopback port,
kept across iterations; the SSH socket carrying it is traced (round trips counted)."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.asyncssh_connect import traced_connect
from bench_runner.modes.clients.tunnel_http import (
    TUNNEL_HOST,
    TUNNEL_PORT,
    BulkSession,
    RequestSession,
    connect_local,
)
from bench_runner.modes.mode import Mode
from bench_runner.roundtrips import SocketTrace


@asynccontextmanager
async def _forward(target: Target) -> AsyncIterator[tuple[int, SocketTrace]]:
    trace = SocketTrace()
    async with traced_connect(target, trace) as conn:
        listener = await conn.forward_local_port(TUNNEL_HOST, 0, TUNNEL_HOST, TUNNEL_PORT)
        try:
            yield listener.get_port(), trace
        finally:
            listener.close()


@asynccontextmanager
async def bulk(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Per iteration a new connection through the forward and one download."""
    async with _forward(target) as (port, trace):
        yield BulkSession(lambda: connect_local(port), mode.bulk_size(), trace=trace)


@asynccontextmanager
async def requests(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One keep-alive connection through the forward; per command one small GET."""
    async with _forward(target) as (port, trace):
        session = RequestSession(lambda: connect_local(port), trace=trace)
        try:
            yield session
        finally:
            session.close()
