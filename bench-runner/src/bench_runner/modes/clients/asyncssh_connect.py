"""An asyncssh connection as the floor client opens it: password login only, nothing from
the local user's SSH setup, its socket traced (round trips counted) and its setup timed
from asyncssh's own client callbacks.

``connection_made`` fires when the TCP connection is up (before the version lines),
``begin_auth`` when the server has accepted the ``ssh-userauth`` service (key exchange
done), and ``asyncssh.connect`` returns once authentication has completed. The client
object changes nothing on the wire: it only notes the time of each callback.
"""

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncssh

from bench_runner.modes.base import Target
from bench_runner.phases import PhaseTimer
from bench_runner.roundtrips import SocketTrace, TracingConnector

CONNECT_TIMEOUT_S = 30.0


def client_options(target: Target) -> asyncssh.SSHClientConnectionOptions:
    """known_hosts=None: the lab device regenerates its host keys on every start, so they
    cannot be pinned; the lab network is isolated."""
    return asyncssh.SSHClientConnectionOptions(
        username=target.username,
        password=target.password,
        known_hosts=None,
        client_keys=None,
        agent_path=None,
        config=[],
        preferred_auth="password",
        connect_timeout=CONNECT_TIMEOUT_S,
    )


class TimedClient(asyncssh.SSHClient):
    def __init__(self) -> None:
        self.connected_at: float | None = None
        self.auth_started_at: float | None = None

    def connection_made(self, conn: asyncssh.SSHClientConnection) -> None:
        self.connected_at = time.perf_counter()

    def begin_auth(self, username: str) -> None:
        self.auth_started_at = time.perf_counter()


class ConnectTimeline:
    """One connection's setup: create before ``asyncssh.connect``, pass ``client`` as its
    ``client_factory``, call ``record`` once it returned."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.client_object = TimedClient()

    def client(self) -> asyncssh.SSHClient:
        return self.client_object

    def record(self, phases: PhaseTimer) -> None:
        """tcp_connect, key_exchange (version lines to the service accept) and auth (to
        the return of ``connect``)."""
        now = time.perf_counter()
        connected = self.client_object.connected_at or self.started
        auth_started = self.client_object.auth_started_at or connected
        phases.add("tcp_connect", connected - self.started)
        phases.add("key_exchange", auth_started - connected)
        phases.add("auth", now - auth_started)


@asynccontextmanager
async def traced_connect(
    target: Target,
    trace: SocketTrace,
    port: int | None = None,
    phases: PhaseTimer | None = None,
) -> AsyncIterator[asyncssh.SSHClientConnection]:
    """``asyncssh.connect`` (to ``port``, default the SSH port) over a TCP connection whose
    traffic ``trace`` records; with ``phases``, the setup (tcp_connect, key_exchange,
    auth) and the close are timed."""
    timeline = ConnectTimeline()
    async with asyncssh.connect(
        target.host,
        port or target.ssh_port,
        options=client_options(target),
        client_factory=timeline.client,
        tunnel=TracingConnector(trace),
    ) as conn:
        if phases is not None:
            timeline.record(phases)
        yield conn
        closing = time.perf_counter()
    if phases is not None:
        phases.add("close", time.perf_counter() - closing)
