"""Phases of an asyncssh connection setup, from asyncssh's own client callbacks.

``connection_made`` fires when the TCP connection is up (before the version lines),
``begin_auth`` when the server has accepted the ``ssh-userauth`` service (key exchange
done), and ``asyncssh.connect`` returns once authentication has completed. The client
object changes nothing on the wire: it only notes the time of each callback.
"""

import time

import asyncssh

from bench_runner.phases import PhaseTimer


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
